/** GET /v1/openapi.json: the OpenAPI 3.1 document, generated from the route table once per cold start. */
import { routeList } from '../../routes/routes.js';
import { config } from '../../config.js';
import { routes } from '../../routes/routes.js';
import { definePublicHandler } from '../define-public-handler.js';
import { openApiDocument } from '../openapi-document.js';

let document: Record<string, unknown> | undefined;

export const handler = definePublicHandler(routes.openApi, async () => ({
  body: (document ??= openApiDocument(routeList, config().version)),
}));
