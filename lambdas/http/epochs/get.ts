/** GET /v1/epochs/:epoch_id (docs/API.md §4.7): the epoch and its RFC 3161 anchor. */
import { getEpoch } from '../../domain/epochs/read-epochs.js';
import { epochRoutes } from '../../routes/route-table/epochs.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(epochRoutes.getEpoch, async ({ caller, params }) => ({
  body: await getEpoch(caller, params.epoch_id),
}));
