/**
 * Every `code` a ProtocolError (errors/protocolerror.ts) carries, as one union, so that a
 * caller's `error.code === '…'` is checked against the codes that exist. Stable: the service
 * maps them onto the docs/API.md §7 error codes, and the SDK and the offline verifier report
 * them; a new code is a new member here.
 */
export type ProtocolErrorCode =
  /** A value with no RFC 8785 canonical JSON form (encoding/jcs.ts). */
  | 'CANONICALIZATION'
  /** Text that is not strict base64url or strict padded base64, RFC 4648 §5/§4 (encoding/). */
  | 'BASE64URL'
  /** A record or document deeper than its nesting limit (encoding/depth.ts). */
  | 'NESTING_TOO_DEEP'
  /** Not an acceptable Ed25519 public key: docs/PROTOCOL.md "Notation" (crypto/curve.ts). */
  | 'INVALID_PUBLIC_KEY'
  /** Not a 32-byte Ed25519 seed, or not a private key (crypto/ed25519node.ts). */
  | 'INVALID_PRIVATE_KEY'
  /** A signature that is not 64 bytes (ledger/receipt.ts). */
  | 'INVALID_SIGNATURE_LENGTH'
  /** Not b64u of a 32-byte SHA-256 value (merkle/hashvalue.ts, ledger/). */
  | 'INVALID_HASH'
  /** Not an Ed25519 JWK of RFC 8037 §2 (crypto/jwk.ts). */
  | 'INVALID_JWK'
  /** A Merkle tree, or log, of no leaves where one is needed (merkle/merkle.ts, tlog/frontier.ts). */
  | 'EMPTY_TREE'
  /** A leaf index or tree size outside the tree (merkle/). */
  | 'INDEX_OUT_OF_RANGE'
  /** A stored compact range that does not fit its tree size (tlog/frontier.ts). */
  | 'INVALID_FRONTIER'
  /** The export writer used out of order or given what docs/EXPORT.md does not allow (export/writer.ts). */
  | 'EXPORT_WRITER'
  /**
   * A C2SP tlog-checkpoint note that does not parse (tlog/checkpoint.ts), or an export writer's
   * stored resume state that is not one (export/writer.ts, export/windowset.ts, export/digestsum.ts).
   */
  | 'INVALID_CHECKPOINT'
  /** A resumable SHA-256 state that is not one hash-wasm saved (export/resumablesha256.ts). */
  | 'INVALID_HASH_STATE'
  /** An epoch window that is not a non-empty interval of safe integers (export/windowset.ts). */
  | 'INVALID_WINDOW'
  /** An epoch window that overlaps the set's windows without being one of them (export/windowset.ts). */
  | 'OVERLAPPING_WINDOWS'
  /** An RFC 3161 time-stamp token that does not parse as one (timestamp/token.ts). */
  | 'INVALID_TIMESTAMP_TOKEN';
