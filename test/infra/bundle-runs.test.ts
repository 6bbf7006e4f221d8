// `cdk synth` bundles each handler with the local esbuild (no Docker). The other infra tests
// skip bundling for speed; this one bundles two real routes' handlers as synth does (with
// lib/bundling.ts's aliases and defines) and loads them, so a broken bundle (ESM/CJS
// interop, a missing dependency, a bad alias) fails `npm test`; and the exports worker, whose
// asset must carry the PDF fonts next to its code (worker-table.ts bundleAssets).
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { App } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { routes } from '../../lambdas/routes/routes.js';
import { PDF_FONT_DIR, PDF_FONT_FILES } from '../../lambdas/shared/pdf-fonts.js';
import { workerList } from '../../lambdas/workers/worker-table.js';
import { LedgerStack } from '../../lib/ledger-stack.js';
import { PROJECT_ROOT } from '../../lib/paths.js';
import { AWS_PLACEHOLDER_ENV } from '../support/placeholder-env.js';
import { cdkContext, resourceOf } from './support.js';

mkdirSync(join(PROJECT_ROOT, '.tmp'), { recursive: true });
const outdir = mkdtempSync(join(PROJECT_ROOT, '.tmp', 'bundling-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));
// The infra files share a process (vitest.config.ts): the placeholder environment leaves with this file.
afterAll(() => vi.unstubAllEnvs());

describe('handler bundles', () => {
  it('bundles the health and submit routes as cdk synth does; health answers, submit loads; the exports worker gets its fonts', async () => {
    const context = cdkContext();
    delete context['aws:cdk:bundling-stacks'];
    // As the CDK CLI does: record each asset's directory in the resource metadata.
    context['aws:cdk:enable-asset-metadata'] = true;
    const app = new App({ context, outdir });
    const exportFiles = workerList.find((worker) => worker.id === 'ExportFiles')!;
    const stack = new LedgerStack(app, 'Bundled', { routes: [routes.health, routes.submitOperation], workers: [exportFiles] });
    const assembly = app.synth();

    const assetDir = (fn: IConstruct) => join(assembly.directory, (resourceOf(fn) as unknown as { Metadata: Record<string, string> }).Metadata['aws:asset:path']!);
    const bundleOf = (id: string) => {
      const file = join(assetDir(stack.api.routes.find((route) => route.spec.id === id)!.function.function), 'index.mjs');
      expect(existsSync(file)).toBe(true);
      return file;
    };
    const bundle = bundleOf(routes.health.id);
    const submitBundle = bundleOf(routes.submitOperation.id);
    // The exports worker's asset holds its code and, beside it, the fonts it reads (domain/exports/pdf/fonts.ts).
    const exportsAsset = assetDir(stack.workers.functions[0]!.function.function);
    expect(readdirSync(exportsAsset).sort()).toEqual([PDF_FONT_DIR, 'index.mjs', 'index.mjs.map']);
    expect(readdirSync(join(exportsAsset, PDF_FONT_DIR))).toEqual(Object.values(PDF_FONT_FILES).map((file) => basename(file)));

    for (const [name, value] of Object.entries(AWS_PLACEHOLDER_ENV)) vi.stubEnv(name, value);
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
