/**
 * GET /v1/openapi.json is a valid OpenAPI 3.1 document whose every reference resolves, and
 * the SDK's generated types (client/src/generated/api.ts) are what openapi-typescript makes
 * of it today.
 */
import { readFile } from 'node:fs/promises';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { API_TYPES_FILE, currentOpenApiDocument, generateApiTypes } from '../../scripts/api-types.js';

describe('OpenAPI document', () => {
  const document = currentOpenApiDocument();

  it('validates against the OpenAPI 3.1 schema', async () => {
    const validator = new Validator();
    const result = await validator.validate(document);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('resolves every $ref inside the document, all under #/components/schemas', () => {
    const refs = [...JSON.stringify(document).matchAll(/"\$ref":"([^"]+)"/g)].map((match) => match[1]!);
    expect(refs.length).toBeGreaterThan(10);
    const schemas = (document.components as { schemas: Record<string, unknown> }).schemas;
    for (const ref of new Set(refs)) {
      expect(ref).toMatch(/^#\/components\/schemas\//);
      expect(schemas[ref.slice('#/components/schemas/'.length)], ref).toBeDefined();
    }
    // The validator's own resolver throws on a reference that points nowhere.
    const validator = new Validator();
    expect(() => validator.resolveRefs({ specification: structuredClone(document) })).not.toThrow();
  });

  it('generates the checked-in SDK types (run `npm run generate:api-types` when this fails)', async () => {
    const checkedIn = await readFile(API_TYPES_FILE, 'utf8');
    expect(checkedIn).toBe(await generateApiTypes());
  });
});
