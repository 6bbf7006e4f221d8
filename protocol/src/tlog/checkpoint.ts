/**
 * Checkpoints of an organization's epoch log in the C2SP `tlog-checkpoint` format: a signed
 * note (C2SP `signed-note`) whose text is the origin, the decimal tree size and the standard
 * base64 root hash, each on its own line, signed with the service's Ed25519 key
 * (docs/CHECKPOINTS.md "Checkpoint"):
 *
 *   agent-ledger/<org_id>\n
 *   <size>\n
 *   <base64 root>\n
 *   \n
 *   — agent-ledger/<org_id> <base64(key ID || Ed25519 signature over the text)>\n
 *
 * key ID = SHA-256(key name || 0x0A || 0x01 || 32-byte public key)[:4]; the key name is the
 * origin. A verifier ignores signature lines of keys it does not know and accepts the note
 * when one known key's signature verifies and none fails.
 */
import { b64Decode, b64Encode } from '../encoding/base64.js';
import { b64uDecode, b64uEncode, isB64u } from '../encoding/base64url.js';
import { verify } from '../crypto/ed25519.js';
import { ProtocolError } from '../errors/protocolerror.js';
import { sha256 } from '../crypto/hash.js';
import { jwkThumbprint, type Jwk } from '../crypto/jwk.js';

/** A checkpoint's text, parsed. */
export type Checkpoint = {
  origin: string;
  /** the log's tree size: how many entries it commits to */
  size: number;
  /** b64u of the 32-byte RFC 9162 root of the log's first `size` entries */
  root_hash: string;
};

/** One signature line of a note. */
export type NoteSignature = { key_name: string; key_id: Uint8Array; signature: Uint8Array };

const EM_DASH = '\u2014';
const utf8 = new TextEncoder();
/** Ed25519's signature type byte in C2SP signed-note key IDs. */
const ED25519_TYPE = 0x01;
const DECIMAL = /^(0|[1-9][0-9]*)$/;

function checkpointError(message: string): ProtocolError {
  return new ProtocolError('INVALID_CHECKPOINT', message);
}

/**
 * The note text of a checkpoint (what is signed), ending in a newline.
 *
 * @example
 * checkpointText({ origin: 'agent-ledger/o', size: 1, root_hash }); // 'agent-ledger/o\n1\n<b64>\n'
 */
export function checkpointText(checkpoint: Checkpoint): string {
  const { origin, size, root_hash } = checkpoint;
  if (!origin || /[\s+\u2014]/u.test(origin)) throw checkpointError('origin must be non-empty, without spaces, plus signs or em dashes');
  if (!Number.isSafeInteger(size) || size < 0) throw checkpointError('size must be a non-negative integer');
  if (!isB64u(root_hash, 32)) throw checkpointError('root_hash must be 32 bytes of base64url');
  return `${origin}\n${size}\n${b64Encode(b64uDecode(root_hash))}\n`;
}

/**
 * The 4-byte C2SP signed-note key ID of an Ed25519 key under `keyName`.
 *
 * @example
 * noteKeyId('agent-ledger/o', rawPublicKey); // Uint8Array(4)
 */
export function noteKeyId(keyName: string, publicKeyRaw: Uint8Array): Uint8Array {
  return sha256(utf8.encode(keyName), new Uint8Array([0x0a, ED25519_TYPE]), publicKeyRaw).slice(0, 4);
}

/**
 * A signed checkpoint note. `sign` signs the text bytes with the key whose raw public half
 * is `publicKey` (b64u, as a JWK's `x`): the service signer.
 *
 * @example
 * const note = await signCheckpoint(cp, jwk.x, (m) => signer.sign(m));
 */
export async function signCheckpoint(checkpoint: Checkpoint, publicKey: string, sign: (message: Uint8Array) => Promise<Uint8Array>): Promise<string> {
  return assembleCheckpoint(checkpoint, publicKey, await sign(utf8.encode(checkpointText(checkpoint))));
}

/**
 * The signed note from a checkpoint and the Ed25519 signature of its text by the key whose
 * raw public half is `publicKey` (b64u). Throws unless the signature verifies.
 *
 * @example
 * assembleCheckpoint(cp, jwk.x, sign(key, new TextEncoder().encode(checkpointText(cp))));
 */
export function assembleCheckpoint(checkpoint: Checkpoint, publicKey: string, signature: Uint8Array): string {
  const text = checkpointText(checkpoint);
  if (!verify(publicKey, utf8.encode(text), signature)) throw checkpointError('the checkpoint signature does not verify with the given public key');
  const keyId = noteKeyId(checkpoint.origin, b64uDecode(publicKey));
  const line = new Uint8Array(4 + signature.byteLength);
  line.set(keyId, 0);
  line.set(signature, 4);
  return `${text}\n${EM_DASH} ${checkpoint.origin} ${b64Encode(line)}\n`;
}

/**
 * Split a signed checkpoint note into its parsed text and signature lines. Throws
 * ProtocolError `INVALID_CHECKPOINT` naming the first problem.
 *
 * @example
 * const { checkpoint, text, signatures } = parseCheckpoint(note);
 */
export function parseCheckpoint(note: string): { checkpoint: Checkpoint; text: string; signatures: NoteSignature[] } {
  if (typeof note !== 'string' || !note.endsWith('\n')) throw checkpointError('a signed note is text ending in a newline');
  if ([...note].some((c) => c < ' ' && c !== '\n')) throw checkpointError('a signed note has no control characters but newline');
  const split = note.lastIndexOf('\n\n');
  if (split < 0) throw checkpointError('no blank line separates the text from the signatures');
  const text = note.slice(0, split + 1);
  const lines = text.slice(0, -1).split('\n');
  if (lines.length < 3) throw checkpointError('the text needs an origin, a size and a root hash line');
  const [origin, sizeText, rootText] = lines as [string, string, string];
  if (!origin) throw checkpointError('the origin line is empty');
  if (!DECIMAL.test(sizeText) || !Number.isSafeInteger(Number(sizeText))) throw checkpointError(`size '${sizeText}' is not a decimal integer`);
  let root: Uint8Array;
  try {
    root = b64Decode(rootText);
  } catch {
    throw checkpointError('the root hash line is not standard base64');
  }
  if (root.byteLength !== 32) throw checkpointError('the root hash is not 32 bytes');
  const signatures: NoteSignature[] = [];
  for (const line of note.slice(split + 2, -1).split('\n')) {
    const parts = line.split(' ');
    if (parts.length !== 3 || parts[0] !== EM_DASH || !parts[1]) throw checkpointError(`not a signature line: '${line.slice(0, 80)}'`);
    let bytes: Uint8Array;
    try {
      bytes = b64Decode(parts[2] as string);
    } catch {
      throw checkpointError('a signature is not standard base64');
    }
    if (bytes.byteLength < 5) throw checkpointError('a signature is shorter than its key ID');
    signatures.push({ key_name: parts[1], key_id: bytes.slice(0, 4), signature: bytes.slice(4) });
  }
  if (signatures.length === 0) throw checkpointError('the note has no signature');
  return { checkpoint: { origin, size: Number(sizeText), root_hash: b64uEncode(root) }, text, signatures };
}

/** The outcome of {@link verifyCheckpoint}. */
export type CheckpointVerdict = { ok: true; checkpoint: Checkpoint; kid: string } | { ok: false; reason: string };

/**
 * Verify a signed checkpoint against a JWKS of Ed25519 service keys: some signature line
 * named `origin` whose key ID matches one of the keys must verify over the text, and no
 * line of a known key may fail. `expectedOrigin`, when given, must be the note's origin.
 * Never throws.
 *
 * @example
 * const v = verifyCheckpoint(note, trustedJwks, logOrigin(orgId));
 * if (v.ok) v.checkpoint.size;
 */
export function verifyCheckpoint(note: unknown, jwks: { keys: readonly Jwk[] }, expectedOrigin?: string): CheckpointVerdict {
  let parsed;
  try {
    parsed = parseCheckpoint(note as string);
  } catch (err) {
    return { ok: false, reason: err instanceof ProtocolError ? err.message : 'the checkpoint does not parse' };
  }
  const { checkpoint, text, signatures } = parsed;
  if (expectedOrigin !== undefined && checkpoint.origin !== expectedOrigin) {
    return { ok: false, reason: `origin is '${checkpoint.origin}', not '${expectedOrigin}'` };
  }
  const keys = (Array.isArray(jwks?.keys) ? jwks.keys : []).filter(
    (k): k is Jwk & { x: string; kid: string } =>
      k !== null && typeof k === 'object' && k.kty === 'OKP' && k.crv === 'Ed25519' && isB64u(k.x, 32) && k.kid === jwkThumbprint({ crv: k.crv, kty: k.kty, x: k.x }),
  );
  const message = utf8.encode(text);
  let verifiedBy: string | null = null;
  for (const sig of signatures) {
    if (sig.key_name !== checkpoint.origin) continue;
    for (const key of keys) {
      const id = noteKeyId(sig.key_name, b64uDecode(key.x));
      if (!id.every((b, i) => b === sig.key_id[i])) continue;
      if (!verify(key.x, message, sig.signature)) return { ok: false, reason: `the signature of service key ${key.kid} does not verify over the checkpoint` };
      verifiedBy = key.kid;
    }
  }
  if (verifiedBy === null) return { ok: false, reason: 'no signature by a known service key' };
  return { ok: true, checkpoint, kid: verifiedBy };
}
