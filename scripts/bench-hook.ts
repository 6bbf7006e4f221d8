/**
 * `npm run bench` (third part): what the coding-tool hook costs per tool use (docs/API.md §1,
 * client tooling). Against an in-memory local stack, in one run and interleaved round by
 * round so that machine load hits all three alike:
 *
 *   1. `node -e ""`: the cost of starting any Node process (the floor);
 *   2. the service's own submit latency: one signed record through the SDK, in process;
 *   3. the hook as a coding tool runs it: a new `node client/dist/cli.cjs hook claudecode
 *      --agent ID` process per tool use, a recorded Claude Code event piped on stdin, until
 *      it answers (after the receipt arrived).
 *
 * Reports p50 and p99 of each and the hook's overhead over the submit latency (target: at
 * most 60 ms at p50). BENCH_HOOK_USES (default 100) sets the number of uses.
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKeyPair, LedgerClient, newAgentKey, type SigningAgent } from '@agent-ledger/client';
import { latencyStats } from './bench-numbers.js';
import { startBenchStack } from './bench-stack.js';
import { apiToken } from '../test/support/http-client.js';

const USES = Number(process.env.BENCH_HOOK_USES ?? 100);
if (!Number.isSafeInteger(USES) || USES <= 0) throw new Error(`BENCH_HOOK_USES must be a positive integer, got "${process.env.BENCH_HOOK_USES}"`);
const CLI = new URL('../client/dist/cli.cjs', import.meta.url).pathname;
const EVENT = readFileSync(new URL('../client/test/fixtures/events/claudecode.json', import.meta.url), 'utf8');
const log = (line: string) => process.stderr.write(`bench-hook: ${line}\n`);

/** Wall time of one process, stdin piped, until it exits. */
function timeProcess(args: string[], env: NodeJS.ProcessEnv, input: string): Promise<{ ms: number; code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { env, stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ ms: performance.now() - started, code, stderr }));
    child.stdin.end(input);
  });
}

const stats = latencyStats;

async function main(): Promise<void> {
  log('building the CLI bundle and starting an in-memory local stack');
  execFileSync(process.execPath, [new URL('../client/build.mjs', import.meta.url).pathname], { stdio: 'inherit' });
  const stack = await startBenchStack();
  try {
    const { token, orgId } = await apiToken(stack.url, 'BenchHook');
    const root = mkdtempSync(join(tmpdir(), 'ledger-bench-hook-'));
    const env = { ...process.env, HOME: join(root, 'home'), AGENT_LEDGER_HOME: join(root, 'ledger') };
    const tokenFile = join(root, 'token');
    writeFileSync(tokenFile, token, { mode: 0o600 });
    // Asynchronously: the service runs in this very process.
    const cli = promisify(execFile);
    await cli(process.execPath, [CLI, 'login', '--url', stack.url, '--token-file', tokenFile], { env });
    const agentId = (await cli(process.execPath, [CLI, 'agent', 'init', '--tool', 'claudecode', '--agent-id', 'bench-hook'], { env })).stdout.trim();

    const ledger = new LedgerClient({ url: stack.url, token });
    const key = generateKeyPair();
    await ledger.registerAgent({ agent_id: 'bench-sdk', integration_type: 'sdk', keys: [newAgentKey(key.privateKey, { orgId, agentId: 'bench-sdk', kid: 'k1' })] });
    const sdkAgent: SigningAgent = { orgId, agentId: 'bench-sdk', kid: 'k1', privateKey: key.privateKey };
    const event = JSON.parse(EVENT) as { tool_input: unknown };
    const submitOnce = () =>
      ledger.submit(sdkAgent, {
        operation_type: 'tool.invoke',
        subject: { kind: 'workspace', id: '/home/dev/shop' },
        action: { verb: 'Bash', target: 'npm test -- --run' },
        payload: { client: 'claudecode', session_id: 's', tool_input: event.tool_input as Record<string, unknown> },
      });

    log(`warming up, then ${USES} rounds of: node -e "", one SDK submit, one hook process`);
    for (let i = 0; i < 5; i++) {
      await submitOnce();
      await timeProcess([CLI, 'hook', 'claudecode', '--agent', agentId], env, EVENT);
    }
    const node: number[] = [];
    const submit: number[] = [];
    const hook: number[] = [];
    for (let i = 0; i < USES; i++) {
      node.push((await timeProcess(['-e', ''], env, '')).ms);
      const t0 = performance.now();
      await submitOnce();
      submit.push(performance.now() - t0);
      const run = await timeProcess([CLI, 'hook', 'claudecode', '--agent', agentId], env, EVENT);
      if (run.code !== 0) throw new Error(`the hook did not allow: exit ${run.code}: ${run.stderr}`);
      hook.push(run.ms);
    }
    const rows = [
      ['node -e "" (process start)', stats(node)],
      ['SDK submit, in process', stats(submit)],
      ['hook process (claudecode)', stats(hook)],
    ] as const;
    console.log(`${'hook benchmark'.padEnd(30)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)}   (${USES} uses each)`);
    for (const [name, s] of rows) console.log(`${name.padEnd(30)} ${s.p50.toFixed(1).padStart(8)} ${s.p99.toFixed(1).padStart(8)}`);
    const overhead = stats(hook).p50 - stats(submit).p50;
    console.log(`hook adds ${overhead.toFixed(1)} ms p50 over the submit latency (target <= 60 ms); of that, ${stats(node).p50.toFixed(1)} ms is starting Node itself`);
    console.log(`ratio: hook p50 = ${(stats(hook).p50 / stats(submit).p50).toFixed(2)}x submit p50, ${(stats(hook).p50 / stats(node).p50).toFixed(2)}x node start p50`);
  } finally {
    await stack.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench-hook: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
