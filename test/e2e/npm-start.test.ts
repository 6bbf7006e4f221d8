/**
 * `npm start` as a user runs it (docs/ARCHITECTURE.md, Local stack): one ready line on stdout, a clean
 * stop on SIGINT, no orphaned Java process even when the runner is SIGKILLed, and data that
 * survives a restart. Runs local/main.ts in a child Node process (with tsx's loader in the
 * same process, so a signal reaches the runner itself, not a wrapper).
 */
import { GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { chmod, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { localDynamoClient } from '../../local/dynamodb-local.js';
import { SECRETS_KEY_FILE, SIGNER_KEY_FILE } from '../../local/keys.js';
import { localS3Client } from '../../local/s3-local.js';

const repoRoot = new URL('../..', import.meta.url).pathname;
const READY_LINE = /^ledger listening on (http:\/\/127\.0\.0\.1:(\d+))$/;

interface Runner {
  child: ChildProcess;
  url: string;
  dynamoEndpoint: string;
  s3Endpoint: string;
  /** With --memory, the scratch dir for objects and keys. */
  scratchDir: string | undefined;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const running: ChildProcess[] = [];
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'ledger-e2e-data-'));
});
afterEach(() => {
  // A failed assertion must not leave a runner behind (its watchdog then takes Java down).
  for (const child of running.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

async function startRunner(args: string[], env: Record<string, string> = {}): Promise<Runner> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'local/main.ts', ...args], {
    cwd: repoRoot,
    env: { ...process.env, PORT: '0', LEDGER_DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const ready = await Promise.race([
    new Promise<string>((resolve) => {
      const check = () => {
        const line = stdout.split('\n')[0] ?? '';
        if (READY_LINE.test(line)) {
          child.stdout!.off('data', check);
          resolve(line);
        }
      };
      child.stdout!.on('data', check);
    }),
    exited.then(({ code }) => {
      throw new Error(`runner exited with ${code} before ready:\n${stderr}`);
    }),
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`runner not ready after 20 s:\n${stderr}`)), 20_000)),
  ]);
  const url = READY_LINE.exec(ready)![1]!;
  const endpoints = /DynamoDB Local (http:\/\/\S+), s3rver (http:\/\/\S+)/.exec(stderr);
  if (!endpoints) throw new Error(`no endpoints line on stderr:\n${stderr}`);
  const scratchDir = /\(scratch (\S+)\)/.exec(stderr)?.[1];
  return {
    child,
    url,
    dynamoEndpoint: endpoints[1]!,
    s3Endpoint: endpoints[2]!,
    scratchDir,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
  };
}

/** Processes whose command line runs DynamoDB Local on this port (the JVM or its watchdog). */
function javaOnPort(endpoint: string): string[] {
  const port = new URL(endpoint).port;
  return execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes('DynamoDBLocal.jar') && new RegExp(`-port ${port}( |$)`).test(line));
}

/** Every file and directory under `dir` that its group or others may access, with its mode. */
async function exposedEntries(dir: string): Promise<string[]> {
  const exposed: string[] = [];
  for (const entry of await readdir(dir, { recursive: true })) {
    const mode = (await stat(join(dir, entry))).mode & 0o777;
    if ((mode & 0o077) !== 0) exposed.push(`${entry} ${mode.toString(8)}`);
  }
  return exposed;
}

async function eventually(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return check();
}

describe('npm start (local/main.ts)', () => {
  it('prints one ready line, answers, and stops cleanly on SIGINT', async () => {
    const runner = await startRunner(['--memory'], { LEDGER_DEV_OAUTH: '1' });
    expect(javaOnPort(runner.dynamoEndpoint).length).toBeGreaterThan(0);
    // The development sign-in signs in as anyone: it is announced loudly (SECURITY.md, Rules the service enforces).
    expect(await eventually(() => /WARNING: LEDGER_DEV_OAUTH=1: the development sign-in is ON/.test(runner.stderr()), 2_000)).toBe(true);

    // The console is announced, and an unknown API path reaches the $default (not-found) handler.
    expect(runner.stderr()).toContain(`ledger: console on ${runner.url}/`);
    const response = await fetch(`${runner.url}/v1/no/such/path`);
    expect(response.status).toBe(404);
    const body = (await response.json()) as { error: { code: string; request_id: string } };
    expect(body.error.code).toBe('NOT_FOUND');
    expect(body.error.request_id).toBe(response.headers.get('x-request-id'));

    expect(runner.scratchDir && existsSync(runner.scratchDir)).toBe(true);
    runner.child.kill('SIGINT');
    expect(await runner.exited).toEqual({ code: 0, signal: null });
    expect(runner.stdout().trim().split('\n')).toHaveLength(1);
    expect(javaOnPort(runner.dynamoEndpoint)).toEqual([]);
    expect(existsSync(runner.scratchDir!)).toBe(false);
  });

  it('leaves no Java process and no scratch data when the runner is SIGKILLed', async () => {
    const runner = await startRunner(['--memory']);
    expect(javaOnPort(runner.dynamoEndpoint).length).toBeGreaterThan(0);
    runner.child.kill('SIGKILL');
    await runner.exited;
    // The watchdog sees its pipe close and sends SIGTERM; the JVM exits in ~1 s.
    expect(await eventually(() => javaOnPort(runner.dynamoEndpoint).length === 0, 8_000)).toBe(true);
    expect(await eventually(() => !existsSync(runner.scratchDir!), 2_000)).toBe(true);
  });

  // Two starts and two stops of the whole stack (DynamoDB Local's JVM each time).
  it('keeps tables, objects and keys in LEDGER_DATA_DIR across restarts', { timeout: 120_000 }, async () => {
    const first = await startRunner([]);
    const item = { pk: { S: 'TEST#persistence' }, sk: { S: 'ITEM' }, value: { S: 'kept' } };
    const dynamo = localDynamoClient(first.dynamoEndpoint);
    await dynamo.send(new PutItemCommand({ TableName: 'ledger', Item: item }));
    dynamo.destroy();
    const s3 = localS3Client(first.s3Endpoint);
    await s3.send(new PutObjectCommand({ Bucket: 'ledger-data', Key: 'test/persistence', Body: 'kept too' }));
    s3.destroy();
    const signerKey = await readFile(join(dataDir, 'keys', SIGNER_KEY_FILE), 'utf8');
    expect(signerKey).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    expect((await stat(join(dataDir, 'keys', SIGNER_KEY_FILE))).mode & 0o777).toBe(0o600);
    expect((await stat(join(dataDir, 'keys', SECRETS_KEY_FILE))).mode & 0o777).toBe(0o600);
    expect((await stat(join(dataDir, 'keys'))).mode & 0o777).toBe(0o700);
    // npm forwards SIGTERM and the process group gets one too: the repeat must not turn the
    // graceful stop into exit 130.
    first.child.kill('SIGTERM');
    expect(await eventually(() => first.stderr().includes('SIGTERM, stopping'), 5_000)).toBe(true);
    first.child.kill('SIGTERM');
    expect(await first.exited).toEqual({ code: 0, signal: null });
    expect(first.stderr()).toMatch(/SIGTERM again; already stopping/);
    // The database, the objects and their metadata are the owner's alone (SECURITY.md, Rules the service enforces).
    expect((await readdir(join(dataDir, 'dynamodb'))).length).toBeGreaterThan(0);
    expect(await exposedEntries(dataDir)).toEqual([]);
    expect(first.stderr()).not.toMatch(/accessible to other users/);

    // A data directory others can enter is reported at start.
    await chmod(dataDir, 0o755);
    const second = await startRunner([]);
    expect(second.stderr()).toMatch(/warning: data directory .* is accessible to other users \(mode 755\)/);
    await chmod(dataDir, 0o700);
    const dynamoAgain = localDynamoClient(second.dynamoEndpoint);
    const read = await dynamoAgain.send(
      new GetItemCommand({ TableName: 'ledger', Key: { pk: item.pk, sk: item.sk }, ConsistentRead: true }),
    );
    dynamoAgain.destroy();
    expect(read.Item?.value).toEqual({ S: 'kept' });
    const s3Again = localS3Client(second.s3Endpoint);
    const object = await s3Again.send(new GetObjectCommand({ Bucket: 'ledger-data', Key: 'test/persistence' }));
    expect(await object.Body!.transformToString()).toBe('kept too');
    s3Again.destroy();
    expect(await readFile(join(dataDir, 'keys', SIGNER_KEY_FILE), 'utf8')).toBe(signerKey);
    // Ctrl-C signals the whole group (npm forwards it as well): twice at once is still one stop.
    second.child.kill('SIGINT');
    expect(await eventually(() => second.stderr().includes('SIGINT, stopping'), 5_000)).toBe(true);
    second.child.kill('SIGINT');
    expect((await second.exited).code).toBe(0);
    expect(javaOnPort(second.dynamoEndpoint)).toEqual([]);
  });

  it('fails fast with a clear message when Java is missing', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'local/main.ts', '--memory'], {
      cwd: repoRoot,
      env: { ...process.env, PORT: '0', JAVA_HOME: join(dataDir, 'no-jdk-here') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    running.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain('Java 17+ is required for DynamoDB Local');
  });

  it('says at once that the port is taken, before starting the engines', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as AddressInfo).port;
    try {
      const started = Date.now();
      const child = spawn(process.execPath, ['--import', 'tsx', 'local/main.ts', '--memory'], {
        cwd: repoRoot,
        env: { ...process.env, PORT: String(port) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      running.push(child);
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect(code).toBe(1);
      expect(stderr).toContain(`port ${port} is already in use; set PORT to another port (0 for any)`);
      // No DynamoDB Local was started for it: the message came before the engines.
      expect(stderr).not.toContain('DynamoDB Local');
      expect(Date.now() - started, 'a busy port is said within a few seconds (Node and tsx start included)').toBeLessThan(8_000);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });
});
