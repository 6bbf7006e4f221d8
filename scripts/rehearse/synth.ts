/**
 * `cdk synth` of a source tree into a cloud assembly directory. With bundles (the rehearsal
 * runs them) through the CDK CLI as a user's `cdk synth` does; without (upgrade-check compares
 * templates only) by running the app as the CLI runs it, with the tree's cdk.json context
 * and `aws:cdk:bundling-stacks` empty, so no esbuild run is spent on code nobody loads.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../lib/paths.js';

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'inherit', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${[command, ...args].join(' ')} in ${cwd} exited with ${code}:\n${stderr.slice(-4000)}`))));
  });
}

/** `context`: `-c key=value` pairs over cdk.json's, as a user's `cdk synth -c` gives them (`receiptSigner=envelope`). */
export async function synthesize(outDir: string, options: { cwd?: string; bundle: boolean; context?: readonly string[] }): Promise<void> {
  const cwd = options.cwd ?? PROJECT_ROOT;
  const env = { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
  if (options.bundle) {
    const cdk = createRequire(join(PROJECT_ROOT, 'package.json')).resolve('aws-cdk/bin/cdk');
    await run(process.execPath, [cdk, 'synth', '--quiet', '-o', outDir, ...(options.context ?? []).flatMap((pair) => ['-c', pair])], cwd, env);
    return;
  }
  const cdkJson = JSON.parse(readFileSync(join(cwd, 'cdk.json'), 'utf8')) as { app: string; context?: Record<string, unknown> };
  const context = { ...cdkJson.context, 'aws:cdk:bundling-stacks': [], 'aws:cdk:enable-asset-metadata': true, 'aws:cdk:enable-path-metadata': true };
  const app = cdkJson.app.replace(/^npx tsx /, '');
  await run(process.execPath, ['--import', 'tsx', app], cwd, { ...env, CDK_OUTDIR: outDir, CDK_CONTEXT_JSON: JSON.stringify(context) });
}
