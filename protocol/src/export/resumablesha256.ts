/**
 * SHA-256 whose running state can be saved as text and resumed elsewhere: the export
 * bundle digest (docs/EXPORT.md, Manifest) is taken over hundreds of megabytes written
 * across several Lambda runs, and the state between runs lives on a DynamoDB item.
 *
 * node:crypto's Hash cannot be serialized, so this uses hash-wasm, whose save()/load()
 * expose the compression state (about 120 bytes) and which runs unchanged in a browser.
 */
import { createSHA256, type IHasher } from 'hash-wasm';
import { b64uDecode, b64uEncode } from '../encoding/base64url.js';
import { ProtocolError } from '../errors/protocolerror.js';

/** A running SHA-256 (FIPS 180-4). */
export interface ResumableSha256 {
  /** Feed more bytes. */
  update(bytes: Uint8Array): void;
  /** The state so far, as base64url text; {@link createResumableSha256} continues from it. */
  save(): string;
  /** The 32-byte digest of everything fed. The hasher cannot be used afterwards. */
  digest(): Uint8Array;
}

/**
 * A new SHA-256, or one continuing from a {@link ResumableSha256.save} state. Throws
 * ProtocolError `INVALID_HASH_STATE` for a state that is not one.
 *
 * @example
 * const h = await createResumableSha256();
 * h.update(part1);
 * const saved = h.save();                      // store it
 * const h2 = await createResumableSha256(saved);
 * h2.update(part2);
 * h2.digest();                                 // = sha256(part1, part2)
 */
export async function createResumableSha256(state?: string): Promise<ResumableSha256> {
  const hasher: IHasher = await createSHA256();
  if (state === undefined) {
    hasher.init();
  } else {
    try {
      hasher.load(b64uDecode(state));
    } catch (err) {
      throw new ProtocolError('INVALID_HASH_STATE', 'saved SHA-256 state does not load', { cause: err });
    }
  }
  let finished = false;
  const live = (): IHasher => {
    if (finished) throw new ProtocolError('INVALID_HASH_STATE', 'the digest was already taken');
    return hasher;
  };
  return {
    update(bytes) {
      live().update(bytes);
    },
    save() {
      return b64uEncode(live().save());
    },
    digest() {
      const out = live().digest('binary');
      finished = true;
      return new Uint8Array(out);
    },
  };
}
