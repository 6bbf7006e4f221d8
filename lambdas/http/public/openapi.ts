/**
 * GET /v1/openapi.json: the OpenAPI 3.1 document, generated from the route table once per
 * cold start. Local-only routes (route-spec.ts) are listed on the local stack only: in AWS
 * they do not exist.
 */
import { config } from '../../config.js';
import { routeList, routes } from '../../routes.js';
import { defineHandler } from '../define-handler.js';
import { openApiDocument } from '../openapi-document.js';

let document: Record<string, unknown> | undefined;

export const handler = defineHandler(routes.openApi, async () => ({
  body: (document ??= openApiDocument(
    routeList.filter((route) => route.localOnly !== true || config().stage === 'local'),
    config().version,
  )),
}));
