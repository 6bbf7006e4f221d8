/**
 * The envelope receipt key's names and items (SECURITY.md, "Receipt signing modes"):
 * the table partition that holds each generation's encrypted seed and public half, and the KMS
 * encryption context `purpose` its seed is sealed under, and the shape of a generation the
 * signer (adapters/aws/envelope-signer.ts) and the store (store/receipt-keys.ts) share. Their
 * own module so that the CDK grants (lib/grants.ts) can name them without loading the signer.
 */
export const RECEIPT_KEYS_PARTITION = 'SERVICE#RECEIPT_KEYS';
export const RECEIPT_KEY_PURPOSE = 'receipt-key';

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
}

/** Where the generations are kept (store/receipt-keys.ts). */
export interface ReceiptKeyStore {
  get(generation: number): Promise<StoredReceiptKey | undefined>;
  /** Writes `key` unless its generation exists; false when another writer was first. */
  create(key: StoredReceiptKey): Promise<boolean>;
  /** Every generation, public halves (the JWKS). */
  list(): Promise<StoredReceiptKey[]>;
}
