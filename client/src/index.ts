/**
 * `@agent-ledger/client`: the SDK of agent-ledger.
 *
 * @example
 * import { LedgerClient, verifyReceipt } from '@agent-ledger/client';
 * const ledger = new LedgerClient({ url: 'https://ledger.example.com', token });
 * const { receipt, record } = await ledger.submit(agent, { operation_type: 'deploy.start',
 *   subject: { kind: 'service', id: 'api' }, action: { verb: 'deploy', target: 'v42' }, payload: null });
 * verifyReceipt(receipt, await ledger.jwks(), { record }).valid; // true
 */
export { LedgerClient } from './sdk/client.js';
export type { Agent, AgentDetail, ChainHead, LedgerClientOptions, OperationInput, RequestOf, ResponseOf, Schemas, SigningAgent, SubmitResult } from './sdk/client.js';
export { LedgerApiError, LedgerTransportError, isApiError } from './sdk/errors.js';
export type { LedgerErrorCode } from './sdk/errors.js';
export { signOperation, DEFAULT_TTL_MS } from './sdk/sign.js';
export { newAgentKey } from './sdk/key-proof.js';
export type { NewAgentKey } from './sdk/key-proof.js';
export type { RecordInput } from './sdk/sign.js';
export { verifyReceipt, verdict } from './sdk/verify-receipt.js';
export type { Check, ReceiptVerifyOptions, Verification } from './sdk/verify-receipt.js';
export type { CreateExportInput, ExportFormat, ExportJob } from './sdk/exports.js';
export { backoffMs, DEFAULT_RETRY } from './sdk/retry.js';
export type { RetryPolicy } from './sdk/retry.js';
export type { components, operations, paths } from './generated/api.js';
export { GENESIS, OP_VERSION, generateKeyPair } from '@agent-ledger/protocol/core';
export type { OperationRecord, Receipt, Jwk } from '@agent-ledger/protocol/core';
