/**
 * `cognito-local` (npm) as the user pool: started as its own process in a scratch directory
 * (cognito-local-server.ts), the pool and app client created from the template's properties,
 * and each code it "mails" (a boxed block in a JSON log line: Username, Destination, Code)
 * handed to `onCode` as the line arrives. The line is written before cognito-local answers the
 * request that mailed the code; `mailedSince` waits for it, so that the rehearsal can hold
 * that answer until the mail is out, as a mailbox would have it by the time the user looks.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CognitoIdentityProviderClient, CreateUserPoolClientCommand, CreateUserPoolCommand, type CreateUserPoolCommandInput } from '@aws-sdk/client-cognito-identity-provider';
import type { Json } from './assembly.js';
import { PROJECT_ROOT } from '../../lib/paths.js';
import { freePort } from '../../local/free-port.js';

/** One code cognito-local mailed: `username` is the pool's (a UUID where email is the sign-in alias), `destination` the address. */
export interface MailedCode {
  readonly username: string;
  readonly destination: string;
  readonly code: string;
}

export interface CognitoLocal {
  readonly endpoint: string;
  createPool(properties: Record<string, Json>): Promise<string>;
  createClient(poolId: string, properties: Record<string, Json>): Promise<string>;
  /** How many codes were mailed so far: a mark for `mailedSince`. */
  mailCount(): number;
  /** Whether a code went to `user` (a username or an address) after `mark`, waiting up to `timeoutMs` for it. */
  mailedSince(mark: number, user: string, timeoutMs: number): Promise<boolean>;
  stop(): Promise<void>;
}

/** Strips the ANSI colours and box-drawing characters of cognito-local's boxed message. */
const plain = (text: string) => text.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'), '').replace(/[│╭╮╰╯─]/g, ' ');

/** The code in one log line of cognito-local-server.ts, if the line is a delivery (services/messageDelivery/consoleMessageSender.js). */
function mailedCode(line: string): MailedCode | undefined {
  if (!line.includes('Code Delivery')) return undefined;
  let msg: unknown;
  try {
    msg = (JSON.parse(line) as { msg?: unknown }).msg;
  } catch {
    return undefined;
  }
  if (typeof msg !== 'string') return undefined;
  const text = plain(msg);
  const field = (name: string) => new RegExp(`^\\s*${name}:\\s+(\\S+)`, 'm').exec(text)?.[1];
  const [username, destination, code] = [field('Username'), field('Destination'), field('Code')];
  return username && destination && code ? { username, destination, code } : undefined;
}

/**
 * Whom a request asks Cognito to mail a code to, if it does: the user of the access token
 * (GetUserAttributeVerificationCode; the token's `username` claim) or the `Username` given.
 */
export function codeRecipient(operation: string, body: Buffer): string | undefined {
  if (!['GetUserAttributeVerificationCode', 'SignUp', 'ResendConfirmationCode', 'ForgotPassword'].includes(operation)) return undefined;
  try {
    const input = JSON.parse(body.toString('utf8')) as { AccessToken?: string; Username?: string };
    if (operation !== 'GetUserAttributeVerificationCode') return input.Username;
    const claims = JSON.parse(Buffer.from(input.AccessToken?.split('.')[1] ?? '', 'base64url').toString('utf8')) as { username?: string };
    return claims.username;
  } catch {
    return undefined; // cognito-local answers it with an error: no code
  }
}

export async function startCognitoLocal(onCode: (mail: MailedCode) => void): Promise<CognitoLocal> {
  const dir = await mkdtemp(join(tmpdir(), 'rehearsal-cognito-'));
  const port = await freePort();
  const server = join(PROJECT_ROOT, 'scripts', 'rehearse', 'cognito-local-server.ts');
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', server, dir], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const mails: MailedCode[] = [];
  const waiting = new Set<() => void>();
  let pending = '';
  let tail = '';
  let exited: string | undefined;
  child.on('exit', (code) => (exited = `cognito-local exited with ${code}: ${plain(tail).slice(-2000)}`));
  const keepTail = (chunk: Buffer) => (tail = (tail + chunk.toString('utf8')).slice(-4000));
  child.stdout!.on('data', (chunk: Buffer) => {
    keepTail(chunk);
    pending += chunk.toString('utf8');
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines) {
      const mail = mailedCode(line);
      if (!mail) continue;
      mails.push(mail);
      onCode(mail);
    }
    for (const wake of [...waiting]) wake();
  });
  // Its last words, for the message if it exits.
  child.stderr!.on('data', keepTail);
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
    mailCount: () => mails.length,
    mailedSince: (mark, user, timeoutMs) => {
      const wanted = user.toLowerCase();
      const found = () => mails.slice(mark).some((mail) => mail.username.toLowerCase() === wanted || mail.destination.toLowerCase() === wanted);
      if (found()) return Promise.resolve(true);
      return new Promise((resolve) => {
        const done = (result: boolean) => {
          clearTimeout(timer);
          waiting.delete(check);
          resolve(result);
        };
        const check = () => void (found() && done(true));
        const timer = setTimeout(() => done(false), timeoutMs);
        waiting.add(check);
      });
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
