/**
 * Errors raised by the protocol package.
 *
 * Every error carries a stable machine-readable `code` so that callers (the HTTP layer,
 * the SDK, the offline verifier) can map it without parsing messages. The codes are
 * protocol-level; the service maps them onto docs/API.md §7 error codes itself.
 */
import type { ProtocolErrorCode } from './codes.js';

/**
 * Base class of every error thrown by `@agent-ledger/protocol`; its `code` is one of
 * {@link ProtocolErrorCode} (errors/codes.ts says where each is raised).
 *
 * @example
 * throw new ProtocolError('INVALID_HASH', 'prev_chain_hash must be 32 bytes');
 */
export class ProtocolError extends Error {
  /** Stable machine-readable reason, e.g. `INVALID_PUBLIC_KEY`. */
  readonly code: ProtocolErrorCode;

  constructor(code: ProtocolErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ProtocolError';
    this.code = code;
  }
}

/**
 * A value cannot be represented in RFC 8785 canonical JSON (NaN, undefined, a Date, a
 * cycle, a lone surrogate, ...). Code `CANONICALIZATION`.
 *
 * @example
 * try { canonicalize({ a: undefined }); } catch (e) { (e as CanonicalizationError).code; } // 'CANONICALIZATION'
 */
export class CanonicalizationError extends ProtocolError {
  constructor(message: string, options?: ErrorOptions) {
    super('CANONICALIZATION', message, options);
    this.name = 'CanonicalizationError';
  }
}

/**
 * Text is not strict unpadded base64url (docs/PROTOCOL.md "Notation", RFC 4648 §5).
 * Code `BASE64URL`.
 *
 * @example
 * try { b64uDecode('AA=='); } catch (e) { (e as Base64urlError).code; } // 'BASE64URL'
 */
export class Base64urlError extends ProtocolError {
  constructor(message: string, options?: ErrorOptions) {
    super('BASE64URL', message, options);
    this.name = 'Base64urlError';
  }
}
