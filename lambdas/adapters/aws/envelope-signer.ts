/**
 * Receipt signer without a KMS call per receipt (SECURITY.md, "Receipt signing modes"): an
 * Ed25519 seed made by KMS GenerateDataKey (32 random bytes, returned with its ciphertext under
 * the wrapping key), stored only as that ciphertext in the table, decrypted once per process
 * and kept in memory; receipts are then signed in process with the same pure Ed25519 (RFC 8032)
 * KMS produces. Each rotation is a new generation (LEDGER_RECEIPT_KEY_GENERATION): the first
 * signing function that finds it missing creates it, and every stored generation stays in the
 * JWKS, so receipts signed by an older one keep verifying.
 *
 * The table is not trusted with what the JWKS lists: a generation is published only with a
 * valid signature of the attestation KMS key (receipt-key-attestor.ts) over its public half,
 * which only a signing function makes, once it made or opened the seed and saw it derive that
 * half. A generation stored before attestations existed is attested by the first signing
 * function that opens it: every signing function, once per cold start, opens each unattested
 * generation it finds (a public half whose seed does not open stays unpublished).
 *
 * No key pair is generated in process: the seed comes from KMS and is imported with the
 * protocol's privateKeyFromSeed (which never exports a generated KeyObject, the Node 20
 * deadlock protocol/src/crypto/ed25519node.ts generateKeyPair describes).
 */
import { DecryptCommand, GenerateDataKeyCommand, type KMSClient } from '@aws-sdk/client-kms';
import { b64uEncode, ed25519Jwk, privateKeyFromSeed, rawPublicKey, sign, type Ed25519Jwk } from '@agent-ledger/protocol';
import type { KeyObject } from 'node:crypto';
import { SignerBusyError, SignerUnavailableError, type Signer } from '../../domain/ports.js';
import { RECEIPT_KEY_PURPOSE, type ReceiptKeyStore, type StoredReceiptKey } from '../../shared/receipt-keys.js';
import { logger } from '../../logger.js';
import { countingThrottles, isThrottling } from './kms-throttles.js';
import type { ReceiptKeyAttestor } from './receipt-key-attestor.js';

interface LoadedKey {
  privateKey: KeyObject;
  jwk: Ed25519Jwk;
}

export class EnvelopeSigner implements Signer {
  private loaded: Promise<LoadedKey> | undefined;

  constructor(
    private readonly kms: KMSClient,
    private readonly store: ReceiptKeyStore,
    /** The symmetric KMS key the seeds are encrypted under (lib/keys.ts receiptKeyWrap). */
    private readonly wrapKeyId: string,
    /** Signs and checks each generation's public half (lib/keys.ts receiptKeyAttestor). */
    private readonly attestor: ReceiptKeyAttestor,
    private readonly generation: number,
    /** Public JWKs of retired service keys (a KMS key used before), kept listed so old receipts keep verifying. */
    private readonly retired: readonly Ed25519Jwk[] = [],
  ) {}

  /** The encryption context binds a ciphertext to its generation: one generation's item cannot be replayed as another's. */
  private static context(generation: number) {
    return { purpose: RECEIPT_KEY_PURPOSE, generation: String(generation) };
  }

  private load(): Promise<LoadedKey> {
    this.loaded ??= this.loadOrCreate();
    this.loaded.catch(() => {
      this.loaded = undefined; // a failed load (KMS unreachable, access denied) is retried on the next call
    });
    return this.loaded;
  }

  private async loadOrCreate(): Promise<LoadedKey> {
    try {
      const stored = await this.store.get(this.generation);
      const key = stored ? await this.open(stored) : ((await this.create()) ?? (await this.openWinner()));
      await this.attestOlderGenerations();
      return key;
    } catch (error) {
      if (isThrottling(error)) throw new SignerBusyError(error);
      throw new SignerUnavailableError(error);
    }
  }

  /** Imports a 32-byte seed and wipes the buffer it came in. */
  private imported(seed: Uint8Array): LoadedKey {
    try {
      const privateKey = privateKeyFromSeed(seed);
      return { privateKey, jwk: ed25519Jwk(b64uEncode(rawPublicKey(privateKey))) };
    } finally {
      seed.fill(0);
    }
  }

  /** Another process created this generation first: its key. */
  private async openWinner(): Promise<LoadedKey> {
    const winner = await this.store.get(this.generation);
    if (!winner) throw new Error(`receipt key generation ${this.generation} was neither created nor found`);
    return this.open(winner);
  }

  /** The generation's key, its stored public half checked against the seed and attested if it was not. */
  private async open(stored: StoredReceiptKey): Promise<LoadedKey> {
    const out = await countingThrottles(
      this.kms.send(
        new DecryptCommand({ KeyId: this.wrapKeyId, CiphertextBlob: stored.ciphertext, EncryptionContext: EnvelopeSigner.context(stored.generation) }),
      ),
    );
    if (!out.Plaintext) throw new Error('KMS Decrypt returned no plaintext');
    const key = this.imported(out.Plaintext);
    // The stored public half is what the JWKS publishes: a seed that does not derive it signs nothing.
    if (key.jwk.x !== stored.x || key.jwk.kid !== stored.kid) throw new Error(`receipt key generation ${stored.generation} does not match its public half`);
    if (!(await this.attestor.attests(stored))) {
      await this.store.attest(stored, await this.attestor.attest(stored));
    }
    return key;
  }

  /** A new generation, attested; undefined when another process stored one first. */
  private async create(): Promise<LoadedKey | undefined> {
    const out = await countingThrottles(
      this.kms.send(
        new GenerateDataKeyCommand({ KeyId: this.wrapKeyId, NumberOfBytes: 32, EncryptionContext: EnvelopeSigner.context(this.generation) }),
      ),
    );
    if (!out.Plaintext || !out.CiphertextBlob) throw new Error('KMS GenerateDataKey returned no data key');
    const key = this.imported(out.Plaintext);
    const fresh = { generation: this.generation, kid: key.jwk.kid, x: key.jwk.x, ciphertext: out.CiphertextBlob, createdAt: Date.now() };
    const stored = await this.store.create({ ...fresh, attestation: await this.attestor.attest(fresh) });
    return stored ? key : undefined;
  }

  /**
   * Opens every other generation without a valid attestation, which attests those whose seed
   * derives their public half (module comment). One that does not open is left unpublished and
   * logged: the signer's own generation is what submissions need.
   */
  private async attestOlderGenerations(): Promise<void> {
    for (const stored of await this.store.list()) {
      if (stored.generation === this.generation || (await this.attestor.attests(stored))) continue;
      try {
        await this.open(stored);
      } catch (error) {
        logger.warn('a receipt key generation without a valid attestation does not open: it stays out of the JWKS', {
          generation: stored.generation,
          error: error instanceof Error ? error : String(error),
        });
      }
    }
  }

  async kid(): Promise<string> {
    return (await this.load()).jwk.kid;
  }

  async sign(message: Uint8Array): Promise<Uint8Array> {
    return sign((await this.load()).privateKey, message);
  }

  /**
   * The current generation first, then the older ones newest first, then the retired keys: read
   * from the table's public halves, each listed only with a valid attestation, so the
   * functions that only publish keys never decrypt and never publish what a table writer put.
   */
  async jwks(): Promise<Ed25519Jwk[]> {
    const stored = (await this.store.list()).sort((a, b) => (a.generation === this.generation ? -1 : b.generation === this.generation ? 1 : b.generation - a.generation));
    const attested = [];
    for (const key of stored) {
      if (await this.attestor.attests(key)) attested.push(key);
      else logger.warn('a receipt key generation without a valid attestation is left out of the JWKS', { generation: key.generation, kid: key.kid });
    }
    const keys = attested.map((key) => ed25519Jwk(key.x));
    return [...keys, ...this.retired.filter((jwk) => !keys.some((key) => key.kid === jwk.kid))];
  }

  /** The current generation's item is readable (the grant every publishing function has); no decryption. */
  async ping(): Promise<void> {
    await this.store.get(this.generation);
  }
}
