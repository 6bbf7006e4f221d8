// `cdk synth` bundles each handler with the local esbuild (no Docker). The other infra tests
// skip bundling for speed; this one bundles a real route's handler as synth does and runs
// the bundle, so a broken bundle (ESM/CJS interop, a missing dependency) fails `npm test`.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, describe, expect, it } from 'vitest';
import { routes } from '../../lambdas/routes/routes.js';
import { LedgerStack } from '../../lib/ledger-stack.js';
import { PROJECT_ROOT } from '../../lib/paths.js';
import { cdkContext } from './support.js';

mkdirSync(join(PROJECT_ROOT, '.tmp'), { recursive: true });
const outdir = mkdtempSync(join(PROJECT_ROOT, '.tmp', 'bundling-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('handler bundles', () => {
  it('bundles the health route as cdk synth does, and the bundle answers', async () => {
    const context = cdkContext();
    delete context['aws:cdk:bundling-stacks'];
    // As the CDK CLI does: record each asset's directory in the resource metadata.
    context['aws:cdk:enable-asset-metadata'] = true;
    const app = new App({ context, outdir });
    const stack = new LedgerStack(app, 'Bundled', { routes: [routes.health], workers: [] });
    const template = Template.fromStack(stack);
    const assembly = app.synth();

    const functions = template.findResources('AWS::Lambda::Function', { Properties: { Runtime: 'nodejs22.x' } });
    const health = Object.entries(functions).find(([logicalId]) => logicalId.startsWith('ApiHealthFunction'))?.[1];
    expect(health).toBeDefined();
    const assetPath = (health!.Metadata as Record<string, string>)['aws:asset:path']!;
    const bundle = join(assembly.directory, assetPath, 'index.mjs');
    expect(existsSync(bundle)).toBe(true);

    process.env.LEDGER_TABLE = 'bundle-test';
    process.env.LEDGER_DATA_BUCKET = 'bundle-test';
    process.env.LEDGER_ANCHORS_BUCKET = 'bundle-test';
    process.env.LEDGER_SIGNER_KEY_ID = 'alias/unused';
    process.env.LEDGER_SECRETS_KEY_ID = 'alias/unused';
    process.env.LEDGER_EVENTS_QUEUE_URL = 'https://sqs.invalid/events';
    process.env.LEDGER_EXPORTS_QUEUE_URL = 'https://sqs.invalid/exports';
    const module = (await import(pathToFileURL(bundle).href)) as { handler: (event: unknown, context: unknown) => Promise<{ statusCode: number; body: string }> };
    const response = await module.handler(
      { version: '2.0', routeKey: 'GET /v1/health', rawPath: '/v1/health', rawQueryString: '', headers: {}, isBase64Encoded: false, requestContext: { requestId: 'bundle-1', http: { method: 'GET', path: '/v1/health' } } },
      {},
    );
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toMatchObject({ status: 'ok' });
  }, 120_000);
});
