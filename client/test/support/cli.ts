/**
 * Runs the built CLI (client/dist/cli.cjs, made by client/test/global-setup.ts) as a separate
 * process, as coding tools and people do, with its own HOME and AGENT_LEDGER_HOME.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../../dist/cli.cjs', import.meta.url));
export const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  input?: string;
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Leave stdin open (Kiro IDE's older versions never close it). */
  keepStdinOpen?: boolean;
  timeoutMs?: number;
}

/** Spawns `file args` (a shell command line when `shell`), feeds stdin, collects the answer. */
export function spawnProcess(file: string, args: string[], options: RunOptions & { shell?: boolean } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      shell: options.shell ?? false,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${file} ${args.join(' ')} did not finish within ${options.timeoutMs ?? 20_000} ms`));
    }, options.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.on('error', () => {});
    if (options.input !== undefined) child.stdin.write(options.input);
    if (!options.keepStdinOpen) child.stdin.end();
  });
}

export function runCli(args: string[], options: RunOptions = {}): Promise<Run> {
  return spawnProcess(process.execPath, [CLI, ...args], options);
}

/** A fresh HOME and AGENT_LEDGER_HOME under the temp directory. */
export function tempHomes(label = 'client') {
  const root = mkdtempSync(join(tmpdir(), `agent-ledger-${label}-`));
  const home = join(root, 'home');
  const ledgerHome = join(root, 'ledger');
  return { root, home, ledgerHome, env: { HOME: home, AGENT_LEDGER_HOME: ledgerHome, XDG_CONFIG_HOME: undefined, CODEX_HOME: undefined, KIMI_CODE_HOME: undefined, KIMI_SHARE_DIR: undefined } };
}

/** Logs the CLI in with a token file (mode 600), as a person would. */
export async function login(url: string, token: string, env: Record<string, string | undefined>, root: string): Promise<void> {
  const file = join(root, `token-${Math.random().toString(36).slice(2)}`);
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  const result = await runCli(['login', '--url', url, '--token-file', file], { env });
  if (result.code !== 0) throw new Error(`login failed: ${result.stderr}`);
}

/**
 * Stores a token for `url`'s origin in AGENT_LEDGER_HOME/credentials as `login` does (docs/CLI.md
 * "Several services"), without asking the service: for a fake service, one that does not answer,
 * or a token a test made stop working. The other origins' entries stay; the current login is
 * `url`'s when `current` (or when there was none).
 */
export function storeLogin(ledgerHome: string, url: string, token: string, options: { expiresAt?: number | null; current?: boolean } = {}): void {
  const path = join(ledgerHome, 'credentials');
  let stored: { current: string | null; origins: Record<string, unknown> } = { current: null, origins: {} };
  try {
    stored = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (!stored.origins) throw new Error(`${path} is not in the per-origin format`);
  const origin = new URL(url).origin;
  stored.origins[origin] = { url, token, ...(options.expiresAt !== undefined ? { expires_at: options.expiresAt } : {}) };
  if (options.current || !stored.current) stored.current = origin;
  mkdirSync(ledgerHome, { recursive: true });
  writeFileSync(path, JSON.stringify(stored), { mode: 0o600 });
}

export function fixture(name: string): string {
  return readFileSync(join(FIXTURES, name), 'utf8');
}

export function readJson<T = any>(path: string): T { // eslint-disable-line @typescript-eslint/no-explicit-any -- test reads of arbitrary JSON
  return JSON.parse(readFileSync(path, 'utf8')) as T;
}
