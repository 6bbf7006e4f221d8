/**
 * Cold-start module load of function bundles: `node` importing each bundle in a fresh
 * process, N runs each, interleaved so machine load hits every bundle alike; prints the
 * median per bundle and its ratio to the first (the baseline).
 *
 *   npx tsx scripts/cold-start.ts [--runs 20] baseline.mjs candidate.mjs ...
 *
 * Bundles come from `npm run bundle-sizes -- --keep <dir>` (lib/bundling.ts, as `cdk synth`
 * builds them). Loading needs the configuration a function gets in AWS; placeholders suffice,
 * since nothing is called.
 */
import { execFileSync } from 'node:child_process';
import { AWS_PLACEHOLDER_ENV } from '../test/support/placeholder-env.js';

const args = process.argv.slice(2);
const runsAt = args.indexOf('--runs');
const runs = runsAt >= 0 ? Number(args.splice(runsAt, 2)[1]) : 20;
const bundles = args;
if (bundles.length === 0) throw new Error('usage: tsx scripts/cold-start.ts [--runs N] bundle.mjs ...');

const env = { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...AWS_PLACEHOLDER_ENV };

function loadMs(bundle: string): number {
  const script = `const t = performance.now(); await import(${JSON.stringify(new URL(bundle, `file://${process.cwd()}/`).href)}); console.log(performance.now() - t);`;
  return Number(execFileSync(process.execPath, ['--input-type=module', '-e', script], { env }).toString());
}

const samples = bundles.map(() => [] as number[]);
for (let run = 0; run < runs; run++) bundles.forEach((bundle, index) => samples[index]!.push(loadMs(bundle)));
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const baseline = median(samples[0]!);
for (const [index, bundle] of bundles.entries()) {
  const value = median(samples[index]!);
  console.log(`${bundle}: median ${value.toFixed(1)} ms over ${runs} runs, ${(value / baseline).toFixed(2)}x the first`);
}
