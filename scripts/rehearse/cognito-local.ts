/**
 * `cognito-local` (npm) as the user pool: started as its own process in a scratch directory,
 * the pool and app client created from the template's properties, and each code it "mails"
 * (a boxed block in its log: Username, Destination, Code) handed to `onCode`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CognitoIdentityProviderClient, CreateUserPoolClientCommand, CreateUserPoolCommand, type CreateUserPoolCommandInput } from '@aws-sdk/client-cognito-identity-provider';
import type { Json } from './assembly.js';
import { freePort } from '../../local/free-port.js';

export interface CognitoLocal {
  readonly endpoint: string;
  createPool(properties: Record<string, Json>): Promise<string>;
  createClient(poolId: string, properties: Record<string, Json>): Promise<string>;
  stop(): Promise<void>;
}

/** Strips the ANSI colours and box-drawing characters of cognito-local's pretty log. */
const plain = (text: string) => text.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'), '').replace(/[│╭╮╰╯─]/g, ' ');

export async function startCognitoLocal(onCode: (mail: { destination: string; code: string }) => void): Promise<CognitoLocal> {
  const dir = await mkdtemp(join(tmpdir(), 'rehearsal-cognito-'));
  const port = await freePort();
  const bin = createRequire(import.meta.url).resolve('cognito-local/lib/bin/start.js');
  const child: ChildProcess = spawn(process.execPath, [bin], { cwd: dir, env: { ...process.env, PORT: String(port), HOST: '127.0.0.1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  let exited: string | undefined;
  child.on('exit', (code) => (exited = `cognito-local exited with ${code}: ${plain(log).slice(-2000)}`));
  const onOutput = (chunk: Buffer) => {
    log += chunk.toString('utf8');
    // One delivery per block; parse complete blocks as they arrive and drop them from the buffer.
    for (;;) {
      const text = plain(log);
      const match = /Destination:\s+(\S+)[\s\S]*?Code:\s+(\S+)/.exec(text);
      if (!match) break;
      onCode({ destination: match[1]!, code: match[2]! });
      log = text.slice(match.index + match[0].length);
    }
    // Its request lines never match: keep only what may start a block, not every line since the last one.
    const open = log.lastIndexOf('Destination:');
    if (open < 0 && log.length > 4096) log = log.slice(-4096);
  };
  child.stdout!.on('data', onOutput);
  child.stderr!.on('data', onOutput);
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new CognitoIdentityProviderClient({ endpoint, region: 'eu-west-1', credentials: { accessKeyId: 'rehearsal', secretAccessKey: 'rehearsal' } });
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited) throw new Error(exited);
    try {
      await fetch(endpoint, { method: 'POST' });
      break;
    } catch {
      if (Date.now() > deadline) throw new Error('cognito-local did not answer within 60 s');
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  return {
    endpoint,
    createPool: async (properties) => {
      const input = { ...(properties as unknown as CreateUserPoolCommandInput), PoolName: 'rehearsal' };
      const out = await client.send(new CreateUserPoolCommand(input));
      return out.UserPool!.Id!;
    },
    createClient: async (poolId, properties) => {
      const out = await client.send(new CreateUserPoolClientCommand({ ...(properties as object), UserPoolId: poolId, ClientName: 'rehearsal' }));
      return out.UserPoolClient!.ClientId!;
    },
    stop: async () => {
      client.destroy();
      if (child.exitCode === null) {
        const gone = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await gone;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
