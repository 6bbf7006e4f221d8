/**
 * cognito-local's server, as its own `cognito-local` command starts it (PORT, HOST), in the
 * directory given as the first argument (its data goes to `.cognito/` there), with one
 * difference: it logs JSON lines written synchronously to stdout. The command's pretty printer
 * (pino-pretty) holds each line back until the next one is logged, so a mailed code would
 * reach the rehearsal only with the next request's log line, seconds or minutes late. Written
 * synchronously, the line of a code is in the pipe before cognito-local answers the request
 * that mailed it. Run by cognito-local.ts as a child process.
 */
import { createRequire } from 'node:module';

interface Pino {
  (options: { level: string }, destination: unknown): unknown;
  destination(options: { dest: number; sync: boolean }): unknown;
}

const [dataDir] = process.argv.slice(2);
if (!dataDir) throw new Error('usage: cognito-local-server.ts DATA_DIR');
process.chdir(dataDir);

const require = createRequire(import.meta.url);
const server = require.resolve('cognito-local/lib/server');
const { createDefaultServer } = require(server) as { createDefaultServer(logger: unknown): Promise<{ start(): Promise<unknown> }> };
// cognito-local's own logger library (its dependency), so that the logger is the one it was written for.
const pino = createRequire(server)('pino') as Pino;
const logger = pino({ level: 'info' }, pino.destination({ dest: 1, sync: true }));

await (await createDefaultServer(logger)).start();
