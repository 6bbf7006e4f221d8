/** GET /v1/epochs (SPEC.md §4.7): the caller's organization's epochs, newest first. */
import { listEpochs } from '../../domain/epochs/read-epochs.js';
import { routes } from '../../routes/routes.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(routes.listEpochs, async ({ caller, query }) => ({
  body: await listEpochs(caller, query),
}));
