/** Public endpoints (docs/API.md §4.11) and the API description. */
import { route } from '../route-spec.js';
import { deepHealthResponse, healthResponse, jwksResponse, openApiResponse } from '../schemas/public.js';

export const publicRoutes = {
  health: route({
    id: 'Health',
    method: 'GET',
    path: '/v1/health',
    handler: 'public/health',
    auth: 'public',
    summary: 'Liveness: the service answers.',
    response: { status: 200, body: healthResponse },
    uses: [],
  }),
  deepHealth: route({
    id: 'DeepHealth',
    method: 'GET',
    path: '/v1/health/deep',
    handler: 'public/deep-health',
    auth: 'public',
    summary: 'Each dependency (table, object store, signer, queue) with status and latency; 503 when any is down.',
    response: { status: 200, body: deepHealthResponse },
    uses: ['table:read', 'data:read', 'signer:public-key', 'queue:events'],
  }),
  jwks: route({
    id: 'Jwks',
    method: 'GET',
    path: '/.well-known/service/jwks.json',
    handler: 'public/jwks',
    auth: 'public',
    summary: 'The receipt-signing public keys (docs/PROTOCOL.md, Receipt).',
    response: { status: 200, body: jwksResponse },
    uses: ['signer:public-key'],
  }),
  openApi: route({
    id: 'OpenApi',
    method: 'GET',
    path: '/v1/openapi.json',
    handler: 'public/openapi',
    auth: 'public',
    summary: 'This API as an OpenAPI 3.1 document, generated from the route table.',
    response: { status: 200, body: openApiResponse },
    uses: [],
  }),
};
