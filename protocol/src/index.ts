/**
 * `@agent-ledger/protocol`: docs/PROTOCOL.md and docs/EXPORT.md in code, shared by the service,
 * the SDK and the offline verifier. Pure, no I/O: node:crypto and node:buffer, plus three
 * libraries that also run in a browser (@noble/curves to decode Ed25519 points for the key
 * rules, hash-wasm for a resumable SHA-256, asn1js to read RFC 3161 tokens). The few modules
 * that need node: have a browser twin on @noble/* behind `#platform/...` (package.json
 * `imports`), which a bundler's `browser` condition picks.
 */
export * from './core.js';
export * from './encoding/base64.js';
export * from './export/resumablesha256.js';
export * from './timestamp/token.js';
export * from './timestamp/oids.js';
export * from './export/format.js';
export * from './export/storedrow.js';
export * from './export/writer.js';
export * from './export/pdfsignature.js';
export * from './verify/report.js';
export * from './verify/bundle.js';
export { ANCHOR_LATE_BOUND_MS, type TimeStampSignatureVerdict } from './verify/material.js';
export * from './verify/since.js';
export type { CheckedLog } from './verify/log.js';
export * from './merkle/consistency.js';
export * from './tlog/index.js';
export * from './keys/index.js';
