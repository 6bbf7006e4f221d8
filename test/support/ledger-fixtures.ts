/**
 * Test fixtures for the agent and ledger endpoints: agent key pairs, and a client-side chain that signs records exactly as an SDK would (docs/PROTOCOL.md
 * "Operation record"), tracking prev_chain_hash from the records it saw accepted.
 */
import type { KeyObject } from 'node:crypto';
import { randomBytes } from 'node:crypto';
import { chainHash, GENESIS, generateKeyPair, type OperationRecord, type UnsignedRecord } from '@agent-ledger/protocol';
import { newAgentKey, signOperation } from '@agent-ledger/client';
import type { Api } from './http-client.js';

export interface TestKey {
  kid: string;
  publicKey: string;
  privateKey: KeyObject;
}

export function newKey(kid = `key-${randomBytes(3).toString('hex')}`): TestKey {
  const { publicKey, privateKey } = generateKeyPair();
  return { kid, publicKey, privateKey };
}

/** A key as registration or key addition takes it, with its proof of possession (docs/PROTOCOL.md "Proof of possession"). */
export const keyBody = (key: TestKey, orgId: string, agentId: string) => newAgentKey(key.privateKey, { orgId, agentId, kid: key.kid });

let agentCounter = 0;
export const uniqueAgentId = (prefix = 'agent') => `${prefix}-${process.pid}-${++agentCounter}-${randomBytes(2).toString('hex')}`;

/** Registers an agent over HTTP; throws unless the service accepted it. */
export async function registerAgent(api: Api, agentId: string, keys: TestKey[], integrationType = 'sdk') {
  const orgId = (await api('GET', '/v1/auth/me')).body.user.org_id as string;
  const res = await api('POST', '/v1/agents/register', { agent_id: agentId, integration_type: integrationType, keys: keys.map((key) => keyBody(key, orgId, agentId)) });
  if (res.status !== 200) throw new Error(`register ${agentId}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export interface RecordOptions {
  payload?: OperationRecord['payload'];
  /** Applied before signing (so the signature covers them). */
  fields?: Partial<UnsignedRecord>;
  /** Applied after signing (to break the signature or the shape on purpose). */
  after?: Record<string, unknown>;
  key?: TestKey;
}

/** An agent's chain as its client sees it: signs the next record on the last accepted head. */
export class ClientChain {
  head = GENESIS;
  seqNo = 0;

  constructor(
    readonly orgId: string,
    readonly agentId: string,
    public key: TestKey,
  ) {}

  /** A signed record on the current head; not yet accepted. Built by the SDK, as an agent would. */
  record(options: RecordOptions = {}): OperationRecord {
    const payload = options.payload === undefined ? { n: this.seqNo + 1 } : options.payload;
    const key = options.key ?? this.key;
    const { signature: _signature, ...fields } = { payload, ...options.fields } as Partial<OperationRecord>;
    const record = signOperation(
      {
        org_id: this.orgId,
        agent_id: this.agentId,
        agent_pubkey_kid: key.kid,
        prev_chain_hash: this.head,
        operation_type: 'test.run',
        subject: { kind: 'repository', id: 'acme/app' },
        action: { verb: 'run' },
        payload,
        ...(fields as Partial<UnsignedRecord>),
      },
      key.privateKey,
    );
    return { ...record, ...options.after } as OperationRecord;
  }

  /** Advances the local head past an accepted record (the SDK's chain state). */
  accept(record: OperationRecord): void {
    this.head = chainHash(this.head, record);
    this.seqNo += 1;
  }

  /** Signs, submits and, when accepted, advances. */
  async submit(api: Api, options: RecordOptions = {}) {
    const record = this.record(options);
    return { record, res: await this.submitRecord(api, record) };
  }

  /** Submits a record made by `record()` and, when accepted, advances. */
  async submitRecord(api: Api, record: OperationRecord) {
    const res = await api('POST', '/v1/operations', record);
    if (res.status === 200) this.accept(record);
    return res;
  }
}
