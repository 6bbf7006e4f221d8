/** Epoch endpoints (docs/API.md §4.7): every role reads its organization's epochs. */
import { ALL_ROLES } from '../../shared/roles.js';
import { route } from '../route-spec.js';
import { epochParams, getEpochResponse, listEpochsQuery, listEpochsResponse } from '../schemas/epochs.js';

export const epochRoutes = {
  listEpochs: route({
    id: 'ListEpochs',
    method: 'GET',
    path: '/v1/epochs',
    handler: 'epochs/list',
    auth: ALL_ROLES,
    summary: "The organization's Merkle epochs, newest first, paged with limit (1-100, default 20) and cursor.",
    request: { query: listEpochsQuery },
    response: { status: 200, body: listEpochsResponse },
    uses: ['table:read'],
  }),
  getEpoch: route({
    id: 'GetEpoch',
    method: 'GET',
    path: '/v1/epochs/{epoch_id}',
    handler: 'epochs/get',
    auth: ALL_ROLES,
    summary: 'One epoch and its RFC 3161 anchor (null until anchored).',
    request: { params: epochParams },
    response: { status: 200, body: getEpochResponse },
    uses: ['table:read'],
  }),
};
