/**
 * `LedgerClient`: the agent-ledger HTTP API (docs/API.md §4) with request and response types
 * generated from GET /v1/openapi.json (../generated/api.ts), plus `submit()`, which does what
 * docs/API.md §2.1 asks of an SDK: it fills in every generated field, signs, keeps the agent's
 * chain head, retries RATE_LIMITED and SERVICE_UNAVAILABLE (nothing was recorded) with exponential
 * backoff honouring Retry-After, and
 * resynchronises the head from GET /v1/agents/:agent_id after PREV_HASH_MISMATCH.
 */
import type { KeyObject } from 'node:crypto';
import { chainHash, GENESIS, type Jwk, type OperationRecord, type Receipt } from '@agent-ledger/protocol/core';
import type { components } from '../generated/api.js';
import type { RequestOf, ResponseOf } from './api-shapes.js';
import { isApiError, LedgerApiError, LedgerTransportError } from './errors.js';
import type { CreateExportInput, ExportDetail, ExportJob } from './exports.js';
import { download, jsonBody, send } from './http.js';
import { backoffMs, DEFAULT_RETRY, sleep, type RetryPolicy } from './retry.js';
import { signOperation } from './sign.js';

export type Schemas = components['schemas'];
export type { RequestOf, ResponseOf };

export type Agent = Schemas['Agent'];
export type AgentDetail = ResponseOf<'GetAgent'>;

export interface LedgerClientOptions {
  /** Base address of the service, e.g. `https://ledger.example.com` (no /v1). */
  url: string;
  /** API token or session token (docs/API.md §5). Never logged. */
  token?: string;
  /** Per-request timeout in ms (default 10000). */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
}

/** An agent able to sign: its identity, its key, and its chain head as far as it knows. */
export interface SigningAgent {
  orgId: string;
  agentId: string;
  kid: string;
  privateKey: KeyObject;
  /** The last accepted record's seq_no and chain_hash; fetched from the service when unknown. */
  head?: ChainHead;
}

export interface ChainHead {
  seq_no: number;
  chain_hash: string;
}

/** What happened, in the terms of docs/API.md §2.1; the rest of the record is generated. */
export interface OperationInput {
  operation_type: string;
  subject: Record<string, unknown>;
  action: Record<string, unknown>;
  payload: OperationRecord['payload'];
  ttl_ms?: number;
}

export interface SubmitResult {
  record: OperationRecord;
  receipt: Receipt;
  /** The agent's new head (also stored on the SigningAgent). */
  head: ChainHead;
}

/** How often `submit()` refetches the head after PREV_HASH_MISMATCH before giving up. */
const MAX_RESYNCS = 3;

/**
 * A client for one service and one token.
 *
 * @example
 * const ledger = new LedgerClient({ url: 'http://127.0.0.1:3000', token });
 * const { agent } = await ledger.getAgent('build-bot');
 * const { receipt } = await ledger.submit(signingAgent, {
 *   operation_type: 'shell.exec', subject: { kind: 'repository', id: 'acme/app' },
 *   action: { verb: 'run', target: 'npm test' }, payload: null });
 */
export class LedgerClient {
  readonly url: URL;
  /** `url` with a trailing slash, so that relative paths resolve under any base path. */
  private readonly base: URL;
  private readonly token: string | undefined;
  private readonly timeoutMs: number;
  private readonly retry: RetryPolicy;

  constructor(options: LedgerClientOptions) {
    let url: URL;
    try {
      url = new URL(options.url);
    } catch {
      throw new TypeError(`not a URL: ${JSON.stringify(options.url)}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`the service URL must be http(s): ${options.url}`);
    this.url = url;
    this.base = new URL(url.href.endsWith('/') ? url.href : `${url.href}/`);
    this.token = options.token;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
  }

  /**
   * One JSON request. RATE_LIMITED and SERVICE_UNAVAILABLE answers (both write nothing) are retried with backoff; every other error
   * throws LedgerApiError (the docs/API.md §7 envelope) or LedgerTransportError.
   *
   * @example
   * const { epochs } = await ledger.request<{ epochs: unknown[] }>('GET', '/v1/epochs');
   */
  async request<T>(method: string, path: string, body?: unknown, options: { deadline?: number } = {}): Promise<T> {
    const url = new URL(path.replace(/^\//, ''), this.base);
    for (let attempt = 1; ; attempt++) {
      const timeoutMs = options.deadline === undefined ? this.timeoutMs : Math.max(1, Math.min(this.timeoutMs, options.deadline - Date.now()));
      const response = await send({
        method,
        url,
        headers: this.token ? { authorization: `Bearer ${this.token}` } : {},
        body,
        timeoutMs,
      });
      try {
        return jsonBody<T>(method, url, response);
      } catch (error) {
        if (!isApiError(error, 'RATE_LIMITED', 'SERVICE_UNAVAILABLE') || attempt >= this.retry.maxAttempts) throw error;
        const wait = backoffMs(this.retry, attempt, error.retryAfterMs);
        if (options.deadline !== undefined && Date.now() + wait >= options.deadline) throw error;
        await sleep(wait);
      }
    }
  }

  health() {
    return this.request<ResponseOf<'Health'>>('GET', '/v1/health');
  }
  /** The service's receipt keys (docs/PROTOCOL.md "Receipt"). */
  jwks() {
    return this.request<{ keys: Jwk[] }>('GET', '/.well-known/service/jwks.json');
  }
  me() {
    return this.request<ResponseOf<'GetProfile'>>('GET', '/v1/auth/me');
  }
  listAgents() {
    return this.request<ResponseOf<'ListAgents'>>('GET', '/v1/agents');
  }
  /** The agent, its keys and its chain head `{seq_no, chain_hash}`. */
  getAgent(agentId: string, options?: { deadline?: number }) {
    return this.request<ResponseOf<'GetAgent'>>('GET', `/v1/agents/${encodeURIComponent(agentId)}`, undefined, options);
  }
  /** Each key needs its proof of possession: build it with newAgentKey() (sdk/key-proof.ts). */
  registerAgent(body: RequestOf<'RegisterAgent'>) {
    return this.request<ResponseOf<'RegisterAgent'>>('POST', '/v1/agents/register', body);
  }
  /** Adds a key (admins); build it with its proof of possession by newAgentKey() (sdk/key-proof.ts). */
  addAgentKey(agentId: string, key: RequestOf<'AddAgentKey'>) {
    return this.request<ResponseOf<'AddAgentKey'>>('POST', `/v1/agents/${encodeURIComponent(agentId)}/keys`, key);
  }
  updateAgent(agentId: string, body: RequestOf<'UpdateAgent'>) {
    return this.request<ResponseOf<'UpdateAgent'>>('PATCH', `/v1/agents/${encodeURIComponent(agentId)}`, body);
  }
  freezeAgent(agentId: string, reason: string) {
    return this.request<ResponseOf<'FreezeAgent'>>('POST', `/v1/agents/${encodeURIComponent(agentId)}/freeze`, { reason });
  }
  unfreezeAgent(agentId: string, reason: string) {
    return this.request<ResponseOf<'UnfreezeAgent'>>('POST', `/v1/agents/${encodeURIComponent(agentId)}/unfreeze`, { reason });
  }
  /** Submits a record exactly as given (see {@link submit} for the managed path). */
  submitOperation(record: OperationRecord, options?: { deadline?: number }) {
    return this.request<{ receipt: Receipt }>('POST', '/v1/operations', record, options);
  }
  getOperation(operationId: string) {
    return this.request<ResponseOf<'GetOperation'>>('GET', `/v1/operations/${encodeURIComponent(operationId)}`);
  }
  verifyOperation(operationId: string) {
    return this.request<ResponseOf<'VerifyOperation'>>('POST', `/v1/operations/${encodeURIComponent(operationId)}/verify`);
  }
  listEpochs() {
    return this.request<ResponseOf<'ListEpochs'>>('GET', '/v1/epochs');
  }
  getEpoch(epochId: string) {
    return this.request<ResponseOf<'GetEpoch'>>('GET', `/v1/epochs/${encodeURIComponent(epochId)}`);
  }

  /** POST /v1/exports (docs/API.md §4.8): the job starts `queued`. */
  createExport(input: CreateExportInput) {
    return this.request<{ export: ExportJob }>('POST', '/v1/exports', input);
  }
  /** GET /v1/exports/:export_id: status, progress and, once done, download_url. */
  getExport(exportId: string) {
    return this.request<ExportDetail>('GET', `/v1/exports/${encodeURIComponent(exportId)}`);
  }
  /**
   * Streams the finished export to `destination` (following the service's redirect to the
   * object store without sending the token there); returns the byte count.
   *
   * @example
   * await ledger.downloadExport(exportId, '/tmp/export.json.part');
   */
  downloadExport(exportId: string, destination: string) {
    const url = new URL(`v1/exports/${encodeURIComponent(exportId)}/download`, this.base);
    return download(url, this.token ? { authorization: `Bearer ${this.token}` } : {}, destination, Math.max(this.timeoutMs, 60_000));
  }

  /**
   * Signs and submits the next record of `agent`'s chain. Generates operation_id (UUIDv7),
   * issued_at, nonce, payload_hash, prev_chain_hash and signature; retries RATE_LIMITED; on
   * PREV_HASH_MISMATCH (another writer moved the chain, or the local head was lost) it
   * refetches the head from GET /v1/agents/:agent_id and signs a fresh record on it. The
   * receipt is checked to acknowledge exactly this record before the head moves.
   *
   * @example
   * const agent = { orgId, agentId: 'build-bot', kid: 'k1', privateKey };
   * const { receipt, head } = await ledger.submit(agent, { operation_type: 'tool.invoke',
   *   subject: { kind: 'workspace', id: '/src/app' }, action: { verb: 'Bash', target: 'ls' }, payload: null });
   */
  async submit(agent: SigningAgent, input: OperationInput, options: { deadline?: number } = {}): Promise<SubmitResult> {
    for (let resyncs = 0; ; resyncs++) {
      const head = agent.head ?? (agent.head = await this.chainHead(agent.agentId, options));
      const record = signOperation(
        {
          org_id: agent.orgId,
          agent_id: agent.agentId,
          agent_pubkey_kid: agent.kid,
          prev_chain_hash: head.chain_hash,
          ...input,
        },
        agent.privateKey,
      );
      let receipt: Receipt;
      try {
        ({ receipt } = await this.submitOperation(record, options));
      } catch (error) {
        if (isApiError(error, 'PREV_HASH_MISMATCH') && resyncs < MAX_RESYNCS) {
          agent.head = undefined;
          continue;
        }
        throw error;
      }
      const expected = chainHash(head.chain_hash, record);
      if (receipt?.operation_id !== record.operation_id || receipt.chain_hash !== expected) {
        throw new LedgerTransportError(`the receipt for ${record.operation_id} does not acknowledge the submitted record`);
      }
      agent.head = { seq_no: receipt.seq_no, chain_hash: receipt.chain_hash };
      return { record, receipt, head: agent.head };
    }
  }

  /**
   * The agent's chain head as the service has it (GENESIS and 0 before its first record).
   *
   * @example
   * agent.head = await ledger.chainHead('build-bot'); // { seq_no: 41, chain_hash: '…' }
   */
  async chainHead(agentId: string, options: { deadline?: number } = {}): Promise<ChainHead> {
    const { chain } = await this.getAgent(agentId, options);
    if (!chain || typeof chain.chain_hash !== 'string') {
      throw new LedgerApiError(500, 'INTERNAL_ERROR', 'the agent answer carries no chain head', undefined);
    }
    return { seq_no: chain.seq_no, chain_hash: chain.chain_hash || GENESIS };
  }
}
