/**
 * Generates the OpenAPI 3.1 document from the route table. OpenAPI 3.1 schemas are JSON
 * Schema 2020-12, which zod 4 emits natively, so each route's zod schemas are the single
 * source of both validation and documentation.
 */
import * as z from 'zod';
import type { RouteSpec } from '../routes/route-spec.js';
import { errorEnvelopeSchema } from '../routes/schemas/common.js';

type JsonSchema = Record<string, unknown>;

function schemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
  delete json.$schema;
  return json;
}

/** Path and query parameters as OpenAPI parameter objects, from object schemas. */
function parameters(schema: z.ZodType | undefined, location: 'path' | 'query'): JsonSchema[] {
  if (!schema) return [];
  const json = schemaOf(schema, 'input');
  const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: location,
    required: location === 'path' || required.has(name),
    schema: property,
  }));
}

function security(route: RouteSpec): JsonSchema[] | undefined {
  if (route.auth === 'public') return [];
  if (route.auth === 'optional') return [{}, { bearer: [] }];
  return [{ bearer: [] }];
}

function rolesNote(route: RouteSpec): string {
  if (typeof route.auth === 'string') return `Auth: ${route.auth}.`;
  return `Roles: ${route.auth.join(', ')}.`;
}

function operation(route: RouteSpec): JsonSchema {
  const success: JsonSchema =
    route.response.body === null
      ? { description: 'OK', content: { [route.response.contentType ?? 'application/octet-stream']: {} } }
      : { description: 'OK', content: { 'application/json': { schema: schemaOf(route.response.body, 'output') } } };
  return {
    operationId: route.id,
    summary: route.summary,
    description: route.description === undefined ? rolesNote(route) : `${rolesNote(route)} ${route.description}`,
    security: security(route),
    parameters: [...parameters(route.request?.params, 'path'), ...parameters(route.request?.query, 'query')],
    ...(route.request?.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: schemaOf(route.request.body, 'input') } } } }
      : {}),
    responses: {
      [String(route.response.status)]: success,
      default: { description: 'Error (SPEC.md §7)', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
    },
  };
}

export function openApiDocument(routes: readonly RouteSpec[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'agent-ledger',
      version,
      description: 'Signed, hash-chained operation records of autonomous agents, anchored in Merkle epochs.',
    },
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'Session token or API token (SPEC.md §5)' } },
      schemas: { Error: schemaOf(errorEnvelopeSchema, 'output') },
    },
  };
}
