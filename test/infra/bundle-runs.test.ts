// `cdk synth` bundles each handler with the local esbuild (no Docker). The other infra tests
// skip bundling for speed; this one bundles two real routes' handlers as synth does (with
// lib/bundling.ts's aliases and defines) and loads them, so a broken bundle (ESM/CJS
// interop, a missing dependency, a bad alias) fails `npm test`.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { App } from 'aws-cdk-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { routes } from '../../lambdas/routes/routes.js';
import { LedgerStack } from '../../lib/ledger-stack.js';
import { PROJECT_ROOT } from '../../lib/paths.js';
import { AWS_PLACEHOLDER_ENV } from '../support/placeholder-env.js';
import { cdkContext, resourceOf } from './support.js';

mkdirSync(join(PROJECT_ROOT, '.tmp'), { recursive: true });
const outdir = mkdtempSync(join(PROJECT_ROOT, '.tmp', 'bundling-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('handler bundles', () => {
  it('bundles the health and submit routes as cdk synth does; health answers, submit loads', async () => {
    const context = cdkContext();
    delete context['aws:cdk:bundling-stacks'];
    // As the CDK CLI does: record each asset's directory in the resource metadata.
    context['aws:cdk:enable-asset-metadata'] = true;
    const app = new App({ context, outdir });
    const stack = new LedgerStack(app, 'Bundled', { routes: [routes.health, routes.submitOperation], workers: [] });
    const assembly = app.synth();

    const bundleOf = (id: string) => {
      const fn = stack.api.routes.find((route) => route.spec.id === id)!.function.function;
      const resource = (resourceOf(fn) as unknown as { Metadata: Record<string, string> }).Metadata;
      const file = join(assembly.directory, resource['aws:asset:path']!, 'index.mjs');
      expect(existsSync(file)).toBe(true);
      return file;
    };
    const bundle = bundleOf(routes.health.id);
    const submitBundle = bundleOf(routes.submitOperation.id);

    Object.assign(process.env, AWS_PLACEHOLDER_ENV);
    const module = (await import(pathToFileURL(bundle).href)) as { handler: (event: unknown, context: unknown) => Promise<{ statusCode: number; body: string }> };
    const response = await module.handler(
      { version: '2.0', routeKey: 'GET /v1/health', rawPath: '/v1/health', rawQueryString: '', headers: {}, isBase64Encoded: false, requestContext: { requestId: 'bundle-1', http: { method: 'GET', path: '/v1/health' } } },
      {},
    );
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toMatchObject({ status: 'ok' });
    // The SDK clients with the credential alias, the signer and the queue all load.
    const submit = (await import(pathToFileURL(submitBundle).href)) as { handler: unknown };
    expect(typeof submit.handler).toBe('function');
  }, 120_000);
});
