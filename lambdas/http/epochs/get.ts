/** GET /v1/epochs/:epoch_id (SPEC.md §4.7): the epoch and its RFC 3161 anchor. */
import { getEpoch } from '../../domain/epochs/read-epochs.js';
import { routes } from '../../routes/routes.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(routes.getEpoch, async ({ caller, params }) => ({
  body: await getEpoch(caller, params.epoch_id),
}));
