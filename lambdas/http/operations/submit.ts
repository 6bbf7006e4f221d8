/** POST /v1/operations (docs/API.md §4.5): the signed record in, the signed receipt out. */
import { submitOperation } from '../../domain/ledger/submit-operation.js';
import { signer } from '../../runtime/signer.js';
import { operationRoutes } from '../../routes/route-table/operations.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(
  operationRoutes.submitOperation,
  async ({ caller, body }) => ({
    body: { receipt: await submitOperation({ signer: signer() }, caller, body) },
  }),
  // Submissions by outcome: ACCEPTED or the docs/API.md §7 code (lambdas/metrics.ts).
  { outcomeMetric: 'Submissions' },
);
