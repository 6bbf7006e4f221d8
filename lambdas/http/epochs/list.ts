/** GET /v1/epochs (docs/API.md §4.7): the caller's organization's epochs, newest first. */
import { listEpochs } from '../../domain/epochs/read-epochs.js';
import { epochRoutes } from '../../routes/route-table/epochs.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(epochRoutes.listEpochs, async ({ caller, query }) => ({
  body: await listEpochs(caller, query),
}));
