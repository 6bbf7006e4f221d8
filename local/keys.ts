/**
 * The key files that stand in for KMS on one machine (docs/ARCHITECTURE.md, Local stack: "Ed25519 and
 * AES-256-GCM keys in files under the data dir, mode 0600"). Created on first start and
 * reused afterwards, so receipts signed yesterday still verify against today's JWKS.
 *
 * Formats (read by lambdas/adapters/local/file-signer.ts and file-encryptor.ts):
 * - `keys/receipt-signer.ed25519.pem`: the receipt-signing Ed25519 private key, PKCS#8 PEM
 *   (`-----BEGIN PRIVATE KEY-----`), loadable with `crypto.createPrivateKey(pem)`;
 * - `keys/secrets.aes256.key`: the AES-256-GCM key for webhook secrets, exactly 32 raw bytes.
 *
 * Both are created with mode 0600 and flag `wx` (never overwriting: two stacks starting on
 * one data dir at once keep the first key), in a directory of mode 0700.
 */
import { createPrivateKey, randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generateKeyPair } from '@agent-ledger/protocol';

export const SIGNER_KEY_FILE = 'receipt-signer.ed25519.pem';
export const SECRETS_KEY_FILE = 'secrets.aes256.key';

export interface LocalKeys {
  /** LEDGER_SIGNER_KEY_FILE */
  signerKeyFile: string;
  /** LEDGER_SECRETS_KEY_FILE */
  secretsKeyFile: string;
}

async function createOnce(path: string, contents: string | Buffer): Promise<boolean> {
  try {
    await writeFile(path, contents, { mode: 0o600, flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/** Warns when a key file is readable by others (a copied or restored data dir). */
async function warnIfExposed(path: string): Promise<void> {
  const { mode } = await stat(path);
  if ((mode & 0o077) !== 0) {
    process.stderr.write(`ledger: warning: ${path} is readable by other users (mode ${(mode & 0o777).toString(8)}); chmod 600 it\n`);
  }
}

/** Ensures both key files exist under `keysDir` and are well-formed; returns their paths. */
export async function ensureLocalKeys(keysDir: string): Promise<LocalKeys> {
  await mkdir(keysDir, { recursive: true, mode: 0o700 });
  const signerKeyFile = join(keysDir, SIGNER_KEY_FILE);
  const secretsKeyFile = join(keysDir, SECRETS_KEY_FILE);

  // The protocol's generation: exporting a KeyObject generateKeyPairSync returned can deadlock on Node 20 (protocol/src/crypto/ed25519node.ts).
  const { privateKey } = generateKeyPair();
  const signerCreated = await createOnce(signerKeyFile, privateKey.export({ format: 'pem', type: 'pkcs8' }) as string);
  const secretsCreated = await createOnce(secretsKeyFile, randomBytes(32));
  if (signerCreated || secretsCreated) await chmod(keysDir, 0o700);

  // Check what we reuse now, not at the first signature: a broken file fails the start.
  const signer = createPrivateKey(await readFile(signerKeyFile, 'utf8'));
  if (signer.asymmetricKeyType !== 'ed25519') {
    throw new Error(`${signerKeyFile} holds a ${signer.asymmetricKeyType} key, not Ed25519`);
  }
  const secretsLength = (await readFile(secretsKeyFile)).length;
  if (secretsLength !== 32) {
    throw new Error(`${secretsKeyFile} holds ${secretsLength} bytes, not a 32-byte AES-256 key`);
  }
  if (!signerCreated) await warnIfExposed(signerKeyFile);
  if (!secretsCreated) await warnIfExposed(secretsKeyFile);
  return { signerKeyFile, secretsKeyFile };
}
