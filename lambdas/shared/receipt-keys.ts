/**
 * The envelope receipt key's names and items (SECURITY.md, "Receipt signing modes"):
 * the table partition that holds each generation's encrypted seed and public half, and the KMS
 * encryption context `purpose` its seed is sealed under, and the shape of a generation the
 * signer (adapters/aws/envelope-signer.ts) and the store (store/receipt-keys.ts) share. Their
 * own module so that the CDK grants (lib/grants.ts) can name them without loading the signer.
 */
export const RECEIPT_KEYS_PARTITION = 'SERVICE#RECEIPT_KEYS';
export const RECEIPT_KEY_PURPOSE = 'receipt-key';

/**
 * What the attestation key signs for a generation (SECURITY.md, "Receipt signing modes"): its
 * number, kid and public half, after a label no receipt, checkpoint or manifest starts with.
 * Only a function that made or opened the generation's seed signs it, so a public half a table
 * writer put in the partition has no valid attestation and is never published.
 */
export function attestationMessage(key: Pick<StoredReceiptKey, 'generation' | 'kid' | 'x'>): Uint8Array {
  return new TextEncoder().encode(`agent-ledger receipt-key attestation v1\n${key.generation}\n${key.kid}\n${key.x}\n`);
}

/** One generation of the receipt key as the table keeps it. */
export interface StoredReceiptKey {
  generation: number;
  /** RFC 7638 thumbprint of the public half. */
  kid: string;
  /** The raw public key, base64url. */
  x: string;
  /** The 32-byte seed encrypted under the wrapping key (KMS ciphertext blob). */
  ciphertext: Uint8Array;
  createdAt: number;
  /**
   * Ed25519 signature by the attestation KMS key over attestationMessage; absent on a
   * generation made before attestations existed, until a signing function opens it.
   */
  attestation?: Uint8Array;
}

/** Where the generations are kept (store/receipt-keys.ts). */
export interface ReceiptKeyStore {
  get(generation: number): Promise<StoredReceiptKey | undefined>;
  /** Writes `key` unless its generation exists; false when another writer was first. */
  create(key: StoredReceiptKey): Promise<boolean>;
  /** Adds `attestation` to the stored generation, only while it still holds the same public half. */
  attest(key: StoredReceiptKey, attestation: Uint8Array): Promise<void>;
  /** Every generation, public halves (the JWKS). */
  list(): Promise<StoredReceiptKey[]>;
}
