/** UUIDv7 ids (RFC 9562 §5.7) come from the protocol package, shared with the client SDK. */
export { uuidv7 } from '@agent-ledger/protocol';
