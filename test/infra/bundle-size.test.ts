// Every function's bundle, built as `cdk synth` builds it (lib/bundling.ts: one esbuild run
// for all of them), stays within a budget and holds only what its route's `uses` needs
// (docs/ARCHITECTURE.md, Lean bundles). The budgets come from measurement (`npm run
// bundle-sizes`), with about 10% headroom: a function that grows past its budget pulled in
// something its route does not use.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleFunctions, functionEntries, type BundledFunction } from '../../lib/bundling.js';
import { PROJECT_ROOT } from '../../lib/paths.js';
import { isDeployed, type Resource } from '../../lambdas/routes/route-spec.js';
import { notFoundHandler, routeList } from '../../lambdas/routes/routes.js';
import { workerList } from '../../lambdas/workers/worker-table.js';
import { PDF_FONT_DIR, PDF_FONT_FILES } from '../../lambdas/shared/pdf-fonts.js';

const KB = 1024;
/** The median function: target 400 KB (measured 366 KB with `npm run bundle-sizes`: each handler loads only its own area's route table). */
const MEDIAN_BUDGET = 400 * KB;

/**
 * A function's budget by the AWS services its `uses` name. Measured: no AWS client 150-195 KB;
 * the table only 356-373 KB, 400-401 KB with the curve checks of agent keys (@noble/curves);
 * with the identity provider (Cognito) 440-446 KB; with the signer, queues or buckets
 * 213-613 KB; the sealer (pkijs for RFC 3161) 816 KB.
 */
function budgetOf(uses: readonly Resource[] | undefined): number {
  if (uses === undefined) return 200 * KB; // the $default route: no resources at all
  if (uses.includes('anchors:write')) return 940 * KB;
  if (uses.length === 0) return 200 * KB;
  if (uses.includes('identity')) return 515 * KB;
  if (uses.every((use) => use === 'table:read' || use === 'table:write')) return 465 * KB;
  return 725 * KB;
}

/**
 * Functions with a budget of their own. ExportFiles (the exports worker) carries pdf-lib and
 * @pdf-lib/fontkit for the PDF report, measured 2005 KB; its font is not inlined but copied
 * next to the bundle (worker-table.ts bundleAssets), checked below.
 */
const OWN_BUDGETS = new Map<string, number>([
  ['ExportFiles', 2200 * KB],
  // OpenApi (GET /v1/openapi.json) uses nothing but carries the whole route table's schemas to
  // describe them (lambdas/http/openapi-document.ts): 201 KB with the activity and key-history
  // routes, and it grows with every route.
  ['OpenApi', 240 * KB],
]);

const usesOf = new Map<string, readonly Resource[]>([
  ...routeList.map((route) => [route.id, route.uses] as const),
  ...workerList.map((worker) => [worker.id, worker.uses] as const),
]);

let outdir: string;
let bundles: BundledFunction[];
beforeAll(async () => {
  mkdirSync(join(PROJECT_ROOT, '.tmp'), { recursive: true });
  outdir = mkdtempSync(join(PROJECT_ROOT, '.tmp', 'bundle-size-'));
  bundles = await bundleFunctions(functionEntries(routeList, notFoundHandler, workerList), outdir);
}, 180_000);
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

const holds = (bundle: BundledFunction, pkg: string) => bundle.inputs.some((input) => input.includes(`node_modules/${pkg}/`));

describe('function bundles', () => {
  it('bundles every deployed route, the $default route and every worker', () => {
    const deployed = [...routeList.filter(isDeployed), ...workerList].map((spec) => spec.id);
    expect(bundles.map((bundle) => bundle.name).sort()).toEqual([...deployed, 'NotFound'].sort());
  });

  it('keeps each function within the budget of what its route uses', () => {
    const over = bundles
      .filter((bundle) => bundle.bytes > (OWN_BUDGETS.get(bundle.name) ?? budgetOf(usesOf.get(bundle.name))))
      .map((bundle) => `${bundle.name}: ${Math.round(bundle.bytes / KB)} KB > ${(OWN_BUDGETS.get(bundle.name) ?? budgetOf(usesOf.get(bundle.name))) / KB} KB`);
    expect(over).toEqual([]);
  });

  it(`keeps the median function under ${MEDIAN_BUDGET / KB} KB`, () => {
    const sizes = bundles.map((bundle) => bundle.bytes).sort((a, b) => a - b);
    expect(sizes[Math.floor(sizes.length / 2)]).toBeLessThan(MEDIAN_BUDGET);
  });

  it('puts pdf-lib only into the exports worker, and inlines no font file', () => {
    expect(bundles.filter((bundle) => holds(bundle, 'pdf-lib')).map((bundle) => bundle.name)).toEqual(['ExportFiles']);
    expect(bundles.filter((bundle) => bundle.inputs.some((input) => /\.(ttf|otf|woff2?)$/.test(input))).map((bundle) => bundle.name)).toEqual([]);
  });

  it('copies the PDF fonts next to the exports worker, byte for byte, and no other function gets a file beside its code', () => {
    const exportFiles = bundles.find((bundle) => bundle.name === 'ExportFiles')!;
    const fonts = Object.values(PDF_FONT_FILES);
    expect(readdirSync(join(exportFiles.dir, PDF_FONT_DIR)).sort()).toEqual(fonts.map((file) => file.split('/').pop()).sort());
    const resolve = createRequire(join(PROJECT_ROOT, 'package.json')).resolve;
    for (const [file, copy] of fonts.map((font, i) => [font, exportFiles.assets[i]!] as const)) {
      expect(readFileSync(join(exportFiles.dir, copy)).equals(readFileSync(resolve(file)))).toBe(true);
    }
    const others = bundles.filter((bundle) => bundle !== exportFiles);
    expect(others.filter((bundle) => readdirSync(bundle.dir).some((entry) => !entry.startsWith('index.mjs'))).map((bundle) => bundle.name)).toEqual([]);
  });

  it('puts pkijs (RFC 3161) only into the sealer', () => {
    expect(bundles.filter((bundle) => holds(bundle, 'pkijs')).map((bundle) => bundle.name)).toEqual(['SealEpochs']);
  });

  it("puts the Cognito client only into routes that use 'identity'", () => {
    const withCognito = bundles.filter((bundle) => holds(bundle, '@aws-sdk/client-cognito-identity-provider')).map((bundle) => bundle.name);
    const identityRoutes = routeList.filter((route) => isDeployed(route) && route.uses.includes('identity')).map((route) => route.id);
    expect(withCognito.sort()).toEqual(identityRoutes.sort());
  });

  it('puts the KMS client only into functions that sign, encrypt or use the identity provider', () => {
    // The Cognito adapter keeps refresh tokens encrypted (adapters/aws/cognito-refresh-tokens.ts), so its wiring carries the encryptor.
    const needsKms = (uses: readonly Resource[] | undefined) =>
      (uses ?? []).some((use) => use.startsWith('signer') || use === 'identity' || use === 'cursors' || use.startsWith('secrets:'));
    const stray = bundles.filter((bundle) => holds(bundle, '@aws-sdk/client-kms') && !needsKms(usesOf.get(bundle.name)));
    expect(stray.map((bundle) => bundle.name)).toEqual([]);
  });

  it('leaves the X-Ray SDK out unless sdkTracing asks for it, and public routes without a table client', () => {
    expect(bundles.filter((bundle) => holds(bundle, 'aws-xray-sdk-core')).map((bundle) => bundle.name)).toEqual([]);
    const health = bundles.find((bundle) => bundle.name === 'Health')!;
    expect(holds(health, '@aws-sdk/client-dynamodb')).toBe(false);
  });
});
