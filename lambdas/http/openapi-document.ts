/**
 * Generates the OpenAPI 3.1 document from the route table. OpenAPI 3.1 schemas are JSON
 * Schema 2020-12, which zod 4 emits natively, so each route's zod schemas are the single
 * source of both validation and documentation.
 *
 * zod emits every schema carrying `.meta({ id })` into the converted schema's own `$defs`,
 * with `$ref: "#/$defs/<id>"`. Inside an OpenAPI document such a reference resolves against
 * the document root, where no `$defs` exists, so the named schemas are lifted into
 * `components.schemas` (OpenAPI 3.1 §4.8.7) and the references are rewritten to point there.
 */
import * as z from 'zod';
import type { RouteSpec } from '../routes/route-spec.js';
import { errorEnvelopeSchema } from '../routes/schemas/common.js';
import { DELIVERY_HEADERS, deliveryBodySchema, EGRESS_POLICY, webhookEventData, webhookEventSummaries } from '../routes/schemas/webhooks.js';

type JsonSchema = Record<string, unknown>;

const COMPONENTS = '#/components/schemas/';

/** The named schemas of one document, filled while its operations are converted. */
class ComponentSchemas {
  readonly schemas: Record<string, JsonSchema> = {};
  private readonly serialized = new Map<string, string>();

  /**
   * Registers `id` and returns the name it lives under. The same id converted for input and
   * for output can differ (defaults, transforms); the input variant then gets its own name.
   */
  add(id: string, schema: JsonSchema, io: 'input' | 'output'): string {
    const text = JSON.stringify(schema);
    for (const name of io === 'input' ? [id, `${id}Input`] : [id]) {
      const existing = this.serialized.get(name);
      if (existing === undefined) {
        this.serialized.set(name, text);
        this.schemas[name] = schema;
        return name;
      }
      if (existing === text) return name;
    }
    throw new Error(`two different schemas carry the OpenAPI component id "${id}"`);
  }
}

/** Replaces every `$ref` to `#/$defs/<id>` with the component name `renamed` gives it. */
function rewriteRefs(value: unknown, renamed: Map<string, string>): unknown {
  if (Array.isArray(value)) return value.map((item) => rewriteRefs(item, renamed));
  if (value === null || typeof value !== 'object') return value;
  const out: JsonSchema = {};
  for (const [key, member] of Object.entries(value)) {
    if (key === '$ref' && typeof member === 'string' && member.startsWith('#/$defs/')) {
      const id = member.slice('#/$defs/'.length);
      out[key] = `${COMPONENTS}${renamed.get(id) ?? id}`;
    } else {
      out[key] = rewriteRefs(member, renamed);
    }
  }
  return out;
}

function schemaOf(schema: z.ZodType, io: 'input' | 'output', components: ComponentSchemas): JsonSchema {
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
  delete json.$schema;
  const defs = (json.$defs ?? {}) as Record<string, JsonSchema>;
  delete json.$defs;
  // Names first (a definition may reference another one), then the rewritten bodies.
  const renamed = new Map<string, string>();
  for (const [id, def] of Object.entries(defs)) renamed.set(id, components.add(id, def, io));
  for (const [id, name] of renamed) components.schemas[name] = rewriteRefs(defs[id], renamed) as JsonSchema;
  return rewriteRefs(json, renamed) as JsonSchema;
}

/** Path and query parameters as OpenAPI parameter objects, from object schemas. */
function parameters(schema: z.ZodType | undefined, location: 'path' | 'query', components: ComponentSchemas): JsonSchema[] {
  if (!schema) return [];
  const json = schemaOf(schema, 'input', components);
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

function operation(route: RouteSpec, components: ComponentSchemas): JsonSchema {
  const success: JsonSchema =
    route.response.body === null
      ? { description: 'OK', content: { [route.response.contentType ?? 'application/octet-stream']: {} } }
      : { description: 'OK', content: { 'application/json': { schema: schemaOf(route.response.body, 'output', components) } } };
  return {
    operationId: route.id,
    summary: route.summary,
    description: route.description === undefined ? rolesNote(route) : `${rolesNote(route)} ${route.description}`,
    security: security(route),
    parameters: [...parameters(route.request?.params, 'path', components), ...parameters(route.request?.query, 'query', components)],
    ...(route.request?.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: schemaOf(route.request.body, 'input', components) } } } }
      : {}),
    responses: {
      [String(route.response.status)]: success,
      default: { description: 'Error (docs/API.md §7)', content: { 'application/json': { schema: { $ref: `${COMPONENTS}Error` } } } },
    },
  };
}

/**
 * The deliveries the service POSTs to registered endpoints (docs/API.md §6.2), one entry per
 * event type, in the document's `webhooks` section (OpenAPI 3.1 §4.8.1).
 */
function webhookDeliveries(components: ComponentSchemas): Record<string, JsonSchema> {
  return Object.fromEntries(
    Object.entries(webhookEventData).map(([event, data]) => [
      event,
      {
        post: {
          summary: webhookEventSummaries[event as keyof typeof webhookEventData],
          description:
            'Signed with the webhook secret: verify X-Service-Signature over `<X-Service-Webhook-Timestamp>.<raw body>` before trusting the body, ' +
            'and de-duplicate on X-Service-Webhook-Delivery-Id. A non-2xx answer, a timeout (10 s) or a refused address is retried after ' +
            '1 min, 5 min, 30 min, 2 h, 6 h and 12 h (each up to 20% later, jitter); after the 7th attempt the delivery is failed. ' +
            EGRESS_POLICY,
          parameters: DELIVERY_HEADERS.map(({ name, description }) => ({ name, in: 'header', required: true, description, schema: { type: 'string' } })),
          requestBody: { required: true, content: { 'application/json': { schema: schemaOf(deliveryBodySchema(event, data), 'output', components) } } },
          responses: { '2XX': { description: 'Received; any 2xx status counts as delivered.' } },
        },
      },
    ]),
  );
}

export function openApiDocument(routes: readonly RouteSpec[], version: string): Record<string, unknown> {
  const components = new ComponentSchemas();
  // The error envelope carries the id `Error`: converting it registers the component.
  schemaOf(errorEnvelopeSchema, 'output', components);
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operation(route, components);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'agent-ledger',
      version,
      description: 'Signed, hash-chained operation records of autonomous agents, anchored in Merkle epochs.',
    },
    paths,
    webhooks: webhookDeliveries(components),
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'Session token or API token (docs/API.md §5)' } },
      schemas: components.schemas,
    },
  };
}
