/**
 * zod validation of path parameters, query string and body against the route's schemas.
 * A failure is VALIDATION_ERROR 400 whose message names the field (`body.keys[0].kid: ...`),
 * so a client can fix its request without reading server logs.
 */
import type { z } from 'zod';
import { LedgerError } from '../shared/errors.js';

type Part = 'params' | 'query' | 'body';

function formatIssues(part: Part, error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => {
      const path = [part, ...issue.path.map((segment) => (typeof segment === 'number' ? `[${segment}]` : String(segment)))]
        .join('.')
        .replace(/\.\[/g, '[');
      return `${path}: ${issue.message}`;
    })
    .join('; ');
}

export function validatePart<S extends z.ZodType>(part: Part, schema: S | undefined, value: unknown): z.infer<S> | undefined {
  if (!schema) return undefined;
  const result = schema.safeParse(value);
  if (!result.success) {
    throw new LedgerError('VALIDATION_ERROR', formatIssues(part, result.error));
  }
  return result.data;
}
