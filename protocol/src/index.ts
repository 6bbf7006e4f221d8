/**
 * `@agent-ledger/protocol`: PROTOCOL.md in code. Pure (node:crypto and node:buffer only),
 * shared by the service, the SDK and the offline verifier.
 */
export * from './errors.js';
export * from './jcs.js';
export * from './base64url.js';
export * from './hash.js';
export * from './ed25519.js';
export * from './jwk.js';
export * from './record.js';
export * from './receipt.js';
export * from './merkle.js';
export * from './uuid.js';
