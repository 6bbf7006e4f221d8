/**
 * The quick tier's rule, enforced (docs/TESTING.md, "The quick tier"): its tests start no child
 * process and open no connection, so that `npm run test:quick` needs no engine, no network and
 * no build, and finishes in seconds. A test that tries either fails at that line with a message
 * saying where it belongs instead: in `npm test`'s other projects.
 *
 * Node's built-in modules are patched on their CommonJS objects, then mirrored into their ES
 * module namespaces (module.syncBuiltinESMExports), so `import { spawn } from 'node:child_process'`
 * gets the guard too.
 */
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';
import tls from 'node:tls';
import dgram from 'node:dgram';

const refuse = (what: string) => () => {
  throw new Error(`the quick tier (npm run test:quick) runs no ${what}: this test belongs in npm test's other projects (docs/TESTING.md)`);
};

for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const) {
  (childProcess as unknown as Record<string, unknown>)[name] = refuse(`child process (${name})`);
}
net.Socket.prototype.connect = refuse('network connection (net.Socket.connect)') as unknown as typeof net.Socket.prototype.connect;
net.createConnection = refuse('network connection (net.createConnection)') as unknown as typeof net.createConnection;
net.connect = refuse('network connection (net.connect)') as unknown as typeof net.connect;
tls.connect = refuse('network connection (tls.connect)') as unknown as typeof tls.connect;
net.Server.prototype.listen = refuse('server (net.Server.listen)') as unknown as typeof net.Server.prototype.listen;
dgram.createSocket = refuse('socket (dgram.createSocket)') as unknown as typeof dgram.createSocket;
syncBuiltinESMExports();
