/**
 * `@agent-ledger/protocol/core`: the records, receipts, keys and hashes of docs/PROTOCOL.md
 * without the export bundle. A coding-tool hook starts a process per tool use and needs
 * only these; importing them from here keeps the export verifier and its ASN.1 reader out
 * of its start-up (the `agent-ledger` CLI is one bundle whose other commands load lazily).
 */
export * from './errors/protocolerror.js';
export * from './encoding/jcs.js';
export * from './encoding/depth.js';
export * from './encoding/base64url.js';
export * from './crypto/hash.js';
export * from './crypto/ed25519.js';
export * from './crypto/curve.js';
export * from './crypto/jwk.js';
export * from './ledger/record.js';
export * from './ledger/receipt.js';
export * from './merkle/merkle.js';
export * from './ledger/uuid.js';
export * from './crypto/jwksverify.js';
export * from './keys/possession.js';
