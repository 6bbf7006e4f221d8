// Both receipt signer modes (SECURITY.md, "Receipt signing modes") against the rehearsal's KMS
// stand-in (KMS has no local engine) over the SDK's real wire format, the envelope keys'
// items in DynamoDB Local: signing, rotation with old receipts still verifying, several cold
// starts racing for one generation, a key that cannot be loaded, and a table writer's own key
// that the JWKS must never publish.
import { DecryptCommand, GenerateDataKeyCommand, GetPublicKeyCommand, KMSClient, SignCommand } from '@aws-sdk/client-kms';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { b64uEncode, ed25519Jwk, generateKeyPair, rawPublicKey, sign, verify, type Ed25519Jwk } from '@agent-ledger/protocol';
import { EnvelopeSigner } from '../../lambdas/adapters/aws/envelope-signer.js';
import { KmsSigner } from '../../lambdas/adapters/aws/kms-signer.js';
import { ReceiptKeyAttestor } from '../../lambdas/adapters/aws/receipt-key-attestor.js';
import { SignerBusyError, SignerUnavailableError, type Signer } from '../../lambdas/domain/ports.js';
import { attestationMessage, RECEIPT_KEYS_PARTITION } from '../../lambdas/shared/receipt-keys.js';
import { dynamo } from '../../lambdas/store/clients.js';
import { table } from '../../lambdas/store/dynamo.js';
import { receiptKeyStore } from '../../lambdas/store/receipt-keys.js';
import { startKmsStandIn } from '../../scripts/rehearse/kms-standin.js';
import type { JsonService } from '../../scripts/rehearse/json-service.js';
import { useLedgerStack } from '../support/ledger-stack.js';

useLedgerStack();

const ARN = (id: string) => `arn:aws:kms:us-east-1:111111111111:key/${id}`;
const WRAP = ARN('wrap');
const OTHER_WRAP = ARN('other-wrap');
const ATTEST = ARN('attest');
const SIGNING = [ARN('signing-1'), ARN('signing-2')] as const;

let standIn: JsonService;
beforeAll(async () => {
  standIn = await startKmsStandIn([
    { arn: WRAP, spec: 'SYMMETRIC_DEFAULT' },
    { arn: OTHER_WRAP, spec: 'SYMMETRIC_DEFAULT' },
    { arn: ATTEST, spec: 'ECC_NIST_EDWARDS25519' },
    { arn: SIGNING[0], spec: 'ECC_NIST_EDWARDS25519' },
    { arn: SIGNING[1], spec: 'ECC_NIST_EDWARDS25519' },
  ]);
});
afterAll(() => standIn?.stop());
afterEach(() => vi.restoreAllMocks());

/** A KMS client of one "process" (a Lambda container), talking to the stand-in. */
const kmsClient = () => new KMSClient({ region: 'us-east-1', endpoint: standIn.endpoint, credentials: { accessKeyId: 'test', secretAccessKey: 'test' }, maxAttempts: 1 });

/** The names of the KMS commands `client` sends from now on. */
function commandsOf(client: KMSClient): string[] {
  const names: string[] = [];
  const send = client.send.bind(client);
  vi.spyOn(client, 'send').mockImplementation(((command: { constructor: { name: string } }, ...rest: unknown[]) => {
    names.push(command.constructor.name);
    return (send as (...args: unknown[]) => Promise<unknown>)(command, ...rest);
  }) as never);
  return names;
}

/** Generations no other test of this file uses: the partition is one for the whole table. */
let nextGeneration = 100;
const freshGeneration = () => (nextGeneration += 10);

const envelope = (generation: number, client = kmsClient(), retired: Ed25519Jwk[] = [], wrap = WRAP) =>
  new EnvelopeSigner(client, receiptKeyStore, wrap, new ReceiptKeyAttestor(client, ATTEST), generation, retired);

/** What a principal with PutItem on the table (and no KMS key) writes: its own key as a generation. */
async function plantGeneration(generation: number, attestation?: Uint8Array) {
  const { privateKey } = generateKeyPair();
  const x = b64uEncode(rawPublicKey(privateKey));
  const jwk = ed25519Jwk(x);
  await dynamo().send(
    new PutCommand({
      TableName: table(),
      Item: { pk: RECEIPT_KEYS_PARTITION, sk: `GEN#${String(generation).padStart(6, '0')}`, generation, kid: jwk.kid, x, ciphertext: new Uint8Array(64).fill(1), created_at: Date.now(), ...(attestation ? { attestation } : {}) },
    }),
  );
  return { jwk, privateKey };
}

/** A "receipt": `message` signed by `signer`, with the kid it names. */
async function signed(signer: Signer, message: Uint8Array) {
  return { kid: await signer.kid(), message, signature: await signer.sign(message) };
}

/** Whether `receipt` verifies against `jwks` the way a verifier does: by the kid it names. */
function verifies(receipt: { kid: string; message: Uint8Array; signature: Uint8Array }, jwks: Ed25519Jwk[]): boolean {
  const key = jwks.find((jwk) => jwk.kid === receipt.kid);
  return key !== undefined && verify(key.x, receipt.message, receipt.signature);
}

const message = (text: string) => new TextEncoder().encode(text);

describe('envelope mode', () => {
  it('creates its generation once, stores only the ciphertext, and signs in process: no KMS call per receipt', async () => {
    const generation = freshGeneration();
    const client = kmsClient();
    const calls = commandsOf(client);
    const signer = envelope(generation, client);
    const receipts = [];
    for (let i = 0; i < 5; i++) receipts.push(await signed(signer, message(`receipt ${i}`)));
    // The seed, then the attestation of its public half: once per generation, never per receipt.
    expect(calls.filter((name) => name !== GetPublicKeyCommand.name)).toEqual([GenerateDataKeyCommand.name, SignCommand.name]);
    const jwks = await signer.jwks();
    expect(jwks[0]!.kid).toBe(receipts[0]!.kid);
    for (const receipt of receipts) expect(verifies(receipt, jwks)).toBe(true);

    const stored = (await receiptKeyStore.get(generation))!;
    expect(stored.kid).toBe(receipts[0]!.kid);
    expect(ed25519Jwk(stored.x)).toEqual(jwks[0]);
    // A KMS ciphertext blob, not a 32-byte seed.
    expect(stored.ciphertext.length).toBeGreaterThan(32);
  });

  it('another process decrypts the stored generation once at its cold start and signs with the same key', async () => {
    const generation = freshGeneration();
    const first = await signed(envelope(generation), message('first process'));
    const client = kmsClient();
    const calls = commandsOf(client);
    const second = envelope(generation, client);
    const receipts = [await signed(second, message('second process')), await signed(second, message('again'))];
    // The seed, and the attestation key's public half to check the stored attestation: no signing.
    expect(calls).toEqual([DecryptCommand.name, GetPublicKeyCommand.name]);
    for (const receipt of receipts) {
      expect(receipt.kid).toBe(first.kid);
      expect(verifies(receipt, await second.jwks())).toBe(true);
    }
  });

  it('cold starts racing for a new generation all end with the one key that was stored', async () => {
    const generation = freshGeneration();
    const signers = Array.from({ length: 6 }, () => envelope(generation));
    const kids = await Promise.all(signers.map((signer) => signer.kid()));
    expect(new Set(kids).size).toBe(1);
    expect(kids[0]).toBe((await receiptKeyStore.get(generation))!.kid);
  });

  it('rotation: a new generation signs with a new key, the JWKS lists it first and still lists the old one, so old receipts verify', async () => {
    const generation = freshGeneration();
    const old = await signed(envelope(generation), message('before rotation'));
    const rotated = envelope(generation + 1);
    const fresh = await signed(rotated, message('after rotation'));
    expect(fresh.kid).not.toBe(old.kid);
    const jwks = await rotated.jwks();
    expect(jwks[0]!.kid).toBe(fresh.kid);
    expect(jwks.map((jwk) => jwk.kid)).toContain(old.kid);
    expect(verifies(old, jwks)).toBe(true);
    expect(verifies(fresh, jwks)).toBe(true);
    // A process still on the old generation (during a deploy) lists the new key too.
    expect((await envelope(generation).jwks()).map((jwk) => jwk.kid)).toContain(fresh.kid);
  });

  it('a key retired from KMS mode (retiredServiceKeys) stays listed after the stored generations, never twice', async () => {
    const kmsSigner = new KmsSigner(kmsClient(), SIGNING[0]);
    const before = await signed(kmsSigner, message('signed in kms mode'));
    const retired = (await kmsSigner.jwks())[0]!;
    const generation = freshGeneration();
    await envelope(generation).kid(); // creates the generation
    const current = ed25519Jwk((await receiptKeyStore.get(generation))!.x);
    // An operator who also lists the current envelope key as retired does not get it twice.
    const signer = envelope(generation, kmsClient(), [retired, current]);
    const jwks = await signer.jwks();
    expect(jwks[0]).toEqual(current);
    expect(jwks.at(-1)).toEqual(retired);
    expect(jwks.filter((jwk) => jwk.kid === current.kid)).toHaveLength(1);
    expect(verifies(before, jwks)).toBe(true);
  });

  it('a decryption refused at cold start is SignerUnavailableError, nothing is cached, and the next call loads the key', async () => {
    const generation = freshGeneration();
    const first = await signed(envelope(generation), message('stored'));
    const client = kmsClient();
    const send = client.send.bind(client);
    vi.spyOn(client, 'send').mockImplementationOnce((() => Promise.reject(Object.assign(new Error('not allowed'), { name: 'AccessDeniedException' }))) as never);
    const signer = envelope(generation, client);
    await expect(signer.sign(message('refused'))).rejects.toBeInstanceOf(SignerUnavailableError);
    vi.mocked(client.send).mockImplementation(send as never);
    expect((await signed(signer, message('recovered'))).kid).toBe(first.kid);
  });

  it('a ciphertext opened under another wrapping key, or moved to another generation, does not load', async () => {
    const generation = freshGeneration();
    await envelope(generation).kid();
    await expect(envelope(generation, kmsClient(), [], OTHER_WRAP).kid()).rejects.toBeInstanceOf(SignerUnavailableError);
    // The encryption context names the generation: a copy of the item under another one is refused.
    const stored = (await receiptKeyStore.get(generation))!;
    const moved = freshGeneration();
    await dynamo().send(
      new PutCommand({
        TableName: table(),
        Item: { pk: RECEIPT_KEYS_PARTITION, sk: `GEN#${String(moved).padStart(6, '0')}`, generation: moved, kid: stored.kid, x: stored.x, ciphertext: stored.ciphertext, created_at: 1 },
      }),
    );
    await expect(envelope(moved).sign(message('moved'))).rejects.toBeInstanceOf(SignerUnavailableError);
  });

  it('KMS throttling while loading is SignerBusyError (RATE_LIMITED), not unavailability', async () => {
    const client = kmsClient();
    vi.spyOn(client, 'send').mockImplementation((() => Promise.reject(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }))) as never);
    await expect(envelope(freshGeneration(), client).sign(message('throttled'))).rejects.toBeInstanceOf(SignerBusyError);
  });

  it('publishing and probing never decrypt: the JWKS and the deep health probe read the public halves and the attestation key\'s, once', async () => {
    const generation = freshGeneration();
    await envelope(generation).kid();
    const client = kmsClient();
    const calls = commandsOf(client);
    const publisher = envelope(generation, client);
    await publisher.jwks();
    await publisher.jwks();
    await publisher.ping();
    expect(calls).toEqual([GetPublicKeyCommand.name]);
  });
});

describe('envelope mode against a table writer (SECURITY.md, insiders with table write access)', () => {
  it('a generation a table writer puts in the partition, with its own key, is never published, so nothing it signs verifies', async () => {
    const generation = freshGeneration();
    await envelope(generation).kid();
    const planted = freshGeneration();
    const { jwk, privateKey } = await plantGeneration(planted);
    // Signed by the writer with its own key, and claimed as an attestation: still not the attestation key's.
    const selfSigned = freshGeneration();
    const second = await plantGeneration(selfSigned);
    await dynamo().send(
      new PutCommand({
        TableName: table(),
        Item: { ...(await rawItem(selfSigned)), attestation: sign(second.privateKey, attestationMessage({ generation: selfSigned, kid: second.jwk.kid, x: second.jwk.x })) },
      }),
    );
    const forged = { kid: jwk.kid, message: message('forged receipt'), signature: sign(privateKey, message('forged receipt')) };
    for (const publisher of [envelope(generation), envelope(planted - 1)]) {
      const kids = (await publisher.jwks()).map((key) => key.kid);
      expect(kids).not.toContain(jwk.kid);
      expect(kids).not.toContain(second.jwk.kid);
      expect(verifies(forged, await publisher.jwks())).toBe(false);
    }
    // A signing function cold-starting meanwhile does not attest what it cannot open.
    await envelope(freshGeneration()).kid();
    expect((await envelope(generation).jwks()).map((key) => key.kid)).not.toContain(jwk.kid);
  });

  it('a genuine generation\'s attestation moved onto a planted public half, or its public half replaced, does not publish the writer\'s key', async () => {
    const generation = freshGeneration();
    const genuine = await signed(envelope(generation), message('genuine'));
    const stored = (await receiptKeyStore.get(generation))!;
    const planted = freshGeneration();
    const { jwk } = await plantGeneration(planted, stored.attestation);
    expect((await envelope(generation).jwks()).map((key) => key.kid)).not.toContain(jwk.kid);
    // The current generation's own item rewritten with the writer's public half: not listed, and the signer refuses it.
    const other = freshGeneration();
    await envelope(other).kid();
    const rewritten = await plantGeneration(other, (await receiptKeyStore.get(other))!.attestation);
    expect((await envelope(generation).jwks()).map((key) => key.kid)).not.toContain(rewritten.jwk.kid);
    await expect(envelope(other).sign(message('after the rewrite'))).rejects.toBeInstanceOf(SignerUnavailableError);
    expect(verifies(genuine, await envelope(generation).jwks())).toBe(true);
  });

  it('a generation stored before attestations existed is attested by the next signing function to cold-start, and published again', async () => {
    const generation = freshGeneration();
    const old = await signed(envelope(generation), message('before attestations'));
    const { attestation: _dropped, ...legacy } = await rawItem(generation);
    await dynamo().send(new PutCommand({ TableName: table(), Item: legacy }));
    expect((await envelope(generation + 1_000_000).jwks()).map((key) => key.kid)).not.toContain(old.kid);

    await envelope(freshGeneration()).kid(); // a signing function of another generation cold-starts
    const jwks = await envelope(generation + 1_000_000).jwks();
    expect(verifies(old, jwks)).toBe(true);
    expect((await receiptKeyStore.get(generation))!.attestation).toHaveLength(64);
  });
});

/** The stored item of `generation`, as the table holds it. */
async function rawItem(generation: number): Promise<Record<string, unknown>> {
  const out = await dynamo().send(new GetCommand({ TableName: table(), Key: { pk: RECEIPT_KEYS_PARTITION, sk: `GEN#${String(generation).padStart(6, '0')}` } }));
  return out.Item!;
}

describe('kms mode', () => {
  it('signs with KMS Sign per receipt; after rotation to a new KMS key with the old one retired, old receipts verify against the new JWKS', async () => {
    const client = kmsClient();
    const calls = commandsOf(client);
    const before = new KmsSigner(client, SIGNING[0]);
    const old = await signed(before, message('old key'));
    await before.sign(message('again'));
    expect(calls.filter((name) => name === 'SignCommand')).toHaveLength(2);

    const after = new KmsSigner(kmsClient(), SIGNING[1], [(await before.jwks())[0]!]);
    const fresh = await signed(after, message('new key'));
    expect(fresh.kid).not.toBe(old.kid);
    const jwks = await after.jwks();
    expect(jwks.map((jwk) => jwk.kid)).toEqual([fresh.kid, old.kid]);
    expect(verifies(old, jwks)).toBe(true);
    expect(verifies(fresh, jwks)).toBe(true);
  });
});
