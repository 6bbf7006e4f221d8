/**
 * `npm start`: the local stack (docs/ARCHITECTURE.md, Local stack). Prints exactly one line on stdout,
 * `ledger listening on http://127.0.0.1:<port>`, when ready; everything else goes to stderr.
 * SIGINT/SIGTERM stop the stack and exit 0. One stop request often arrives twice (npm
 * forwards the signal to us and the process group gets it too; Ctrl-C signals the whole
 * group), so repeats are ignored while the stop runs, with one exception: a SIGINT more
 * than a second after the first signal is an impatient second Ctrl-C, and exits at once
 * with 130 (the watchdog still takes DynamoDB Local down with us).
 */
import { resolve } from 'node:path';
import { JavaMissingError } from './java.js';
import { startLocalStack, type LocalStack } from './stack.js';
import { assertPortFree } from './port-check.js';

const USAGE = `usage: npm start [-- --memory]

Runs the ledger service on this machine: HTTP API on 127.0.0.1, DynamoDB Local (Java 17+),
s3rver, in-process queue and epoch timer.

options:
  --memory     keep nothing: in-memory tables, temporary objects and keys
  --verbose    copy DynamoDB Local's output to stderr
  --help       this text

environment:
  PORT                           HTTP port (default 3000; 0 picks a free one)
  LEDGER_DATA_DIR                data directory (default .ledger/ in the current directory)
  LEDGER_EPOCH_MS                epoch length and sealing interval in ms (default 300000)
  LEDGER_EPOCH_GRACE_MS          wait before sealing an epoch (default 60000)
  LEDGER_TSA_URL                 RFC 3161 time-stamp authority (default none)
  LEDGER_RATE_LIMIT_RPS          per-token rate limit (default 100)
  LEDGER_MAX_PAYLOAD_BYTES       largest operation payload (default 262144)
  LEDGER_WEBHOOK_ALLOW_LOOPBACK  allow webhooks to loopback addresses (default false)
  LEDGER_PUBLIC_URL              base URL of links in mails (default http://127.0.0.1:PORT)
  LEDGER_DEV_OAUTH               1 turns on the development sign-in page, which signs in as
                                 any address without a password (default off)
`;

/** Printed on stderr at every start with LEDGER_DEV_OAUTH=1 (SECURITY.md, Rules the service enforces). */
const DEV_OAUTH_WARNING = `
ledger: ################################################################################
ledger: WARNING: LEDGER_DEV_OAUTH=1: the development sign-in is ON.
ledger: Anyone who can reach this server can sign in as any address that has no password
ledger: (via /api/auth/dev-oauth/authorize), accept invitations sent to it, and act as it.
ledger: Use it only on your own machine; it is never part of the AWS stack.
ledger: ################################################################################
`;

/** Signals within this long of the first are the same stop request delivered twice. */
const REPEAT_WINDOW_MS = 1_000;

interface Args {
  memory: boolean;
  verbose: boolean;
  help: boolean;
}

function parseArgs(argv: readonly string[]): Args {
  const args: Args = { memory: false, verbose: false, help: false };
  for (const arg of argv) {
    if (arg === '--memory') args.memory = true;
    else if (arg === '--verbose') args.verbose = true;
    else if (arg === '--help' || arg === '-h') args.help = true;
    else throw new UsageError(`unknown argument ${arg}`);
  }
  return args;
}

class UsageError extends Error {}

function parsePort(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 3000;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`PORT must be 0-65535, got "${raw}"`);
  return port;
}

function fail(message: string, code: number): never {
  process.stderr.write(`ledger: ${message}\n`);
  process.exit(code);
}

async function main(): Promise<void> {
  let args: Args;
  let port: number;
  try {
    args = parseArgs(process.argv.slice(2));
    port = parsePort(process.env.PORT);
  } catch (error) {
    if (error instanceof UsageError) fail(`${error.message}\n\n${USAGE}`, 2);
    throw error;
  }
  if (args.help) {
    process.stdout.write(USAGE);
    return;
  }

  let stack: LocalStack | undefined;
  let signalled = false;
  let firstSignalAt = 0;
  const shutdown = async () => {
    try {
      await stack?.stop();
    } finally {
      process.exit(0);
    }
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) {
      if (signal === 'SIGINT' && Date.now() - firstSignalAt > REPEAT_WINDOW_MS) {
        process.stderr.write(`ledger: ${signal} again, exiting now\n`);
        process.exit(130);
      }
      process.stderr.write(`ledger: ${signal} again; already stopping\n`);
      return;
    }
    signalled = true;
    firstSignalAt = Date.now();
    process.stderr.write(`ledger: ${signal}, stopping\n`);
    // During start, stopping waits for startLocalStack to return (below).
    if (stack) void shutdown();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const dataDir = resolve(process.env.LEDGER_DATA_DIR || '.ledger');
  try {
    // A busy port is said at once, before the engines take seconds to start (port-check.ts).
    await assertPortFree(port);
    stack = await startLocalStack({ port, dataDir, memory: args.memory, verbose: args.verbose });
  } catch (error) {
    if (error instanceof JavaMissingError) fail(error.message, 1);
    fail(`could not start the local stack: ${error instanceof Error ? error.message : String(error)}`, 1);
  }
  if (signalled) return shutdown();
  watchParent(() => onSignal('SIGHUP'));
  process.stderr.write(
    `ledger: ${args.memory ? `in memory, nothing kept (scratch ${stack.storageDir})` : `data in ${dataDir}`}; DynamoDB Local ${stack.dynamoEndpoint}, s3rver ${stack.s3Endpoint}\n`,
  );
  if (stack.devOAuth) process.stderr.write(DEV_OAUTH_WARNING);
  process.stderr.write(`ledger: console on ${stack.url}/ (API under /v1, /api and /.well-known)\n`);
  const url = stack.url;
  void stack.clientFiles.then((served) => served && process.stderr.write(`ledger: the CLI and the Python package: ${url}/client/index.json (docs/CLI.md)\n`));
  process.stdout.write(`ledger listening on ${stack.url}\n`);
}

/**
 * Stops the stack when the process that started us dies without signalling (npm or a shell
 * killed with SIGKILL): we are re-parented, so our parent pid changes. Without this a
 * SIGKILLed `npm start` would leave this process and its Java child running.
 */
function watchParent(onOrphaned: () => void): void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid !== parent) {
      clearInterval(timer);
      onOrphaned();
    }
  }, 1_000);
  timer.unref();
}

await main();
