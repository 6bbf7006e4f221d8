/**
 * `cognito-local` (npm) as the user pool: started as its own process in a scratch directory,
 * the pool and app client created from the template's properties.
 *
 * The codes it "mails" are read from its data, not from its log: cognito-local saves a code
 * on the user (`ConfirmationCode`, `AttributeVerificationCode` in `.cognito/db/<pool id>.json`)
 * before it answers the request that mailed it, whereas its log (a boxed block on stdout,
 * through a pretty printer that holds lines back) brought some codes seconds or minutes late
 * and, under concurrent requests, some not at all. `mailWait` is asked as a request arrives
 * and, for one that mails a code, reads that code once cognito-local has answered and hands it
 * to `onCode`: the rehearsal holds the answer until then, so whoever reads the mail after the
 * product's answer finds it, as in a mailbox.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CognitoIdentityProviderClient, CreateUserPoolClientCommand, CreateUserPoolCommand, type CreateUserPoolCommandInput } from '@aws-sdk/client-cognito-identity-provider';
import type { Json } from './assembly.js';
import { freePort } from '../../local/free-port.js';

/** One code cognito-local mailed: `username` is the pool's (a UUID where email is the sign-in alias), `destination` the address. */
interface MailedCode {
  readonly username: string;
  readonly destination: string;
  readonly code: string;
}

interface CognitoLocal {
  readonly endpoint: string;
  createPool(properties: Record<string, Json>): Promise<string>;
  createClient(poolId: string, properties: Record<string, Json>): Promise<string>;
  /**
   * For a request that mails a code (`operation`, its JSON body), a wait to run once
   * cognito-local answered it with `status`: it reads the code and hands it to `onCode`.
   * Undefined for any other request.
   */
  mailWait(operation: string, body: Buffer): ((status: number) => Promise<void>) | undefined;
  stop(): Promise<void>;
}

/** The user attribute each code-mailing operation stores its code in (cognito-local's targets/). */
const CODE_FIELD: Record<string, 'ConfirmationCode' | 'AttributeVerificationCode'> = {
  GetUserAttributeVerificationCode: 'AttributeVerificationCode',
  SignUp: 'ConfirmationCode',
  ResendConfirmationCode: 'ConfirmationCode',
  ForgotPassword: 'ConfirmationCode',
};

/**
 * cognito-local saves the code before it answers; not finding it at once means a concurrent
 * save rewrote the file with an older state, which the next save corrects. Short, so that the
 * product's SDK call does not time out waiting.
 */
const CODE_WAIT_MS = 2_000;

/**
 * Whom a request asks Cognito to mail a code to, if it does: the user of the access token
 * (GetUserAttributeVerificationCode; the token's `username` claim) or the `Username` given.
 */
function codeRecipient(operation: string, body: Buffer): string | undefined {
  if (!(operation in CODE_FIELD)) return undefined;
  try {
    const input = JSON.parse(body.toString('utf8')) as { AccessToken?: string; Username?: string };
    if (operation !== 'GetUserAttributeVerificationCode') return input.Username;
    const claims = JSON.parse(Buffer.from(input.AccessToken?.split('.')[1] ?? '', 'base64url').toString('utf8')) as { username?: string };
    return claims.username;
  } catch {
    return undefined; // cognito-local answers it with an error: no code
  }
}

interface StoredUser {
  Username: string;
  Attributes?: { Name: string; Value?: string }[];
  ConfirmationCode?: string;
  AttributeVerificationCode?: string;
}

/**
 * The user `wanted` (a username or an email address) in cognito-local's data directory, as
 * last saved. Read synchronously: the code a user holds before a request must be read before
 * the request goes on to cognito-local.
 */
function storedUser(dataDir: string, wanted: string): StoredUser | undefined {
  const lower = wanted.toLowerCase();
  for (const file of existsSync(dataDir) ? readdirSync(dataDir) : []) {
    if (!file.endsWith('.json') || file === 'clients.json') continue;
    let users: Record<string, StoredUser>;
    try {
      users = (JSON.parse(readFileSync(join(dataDir, file), 'utf8')) as { Users?: Record<string, StoredUser> }).Users ?? {};
    } catch {
      continue; // caught mid-write: the caller reads again
    }
    const email = (user: StoredUser) => user.Attributes?.find((attribute) => attribute.Name === 'email')?.Value?.toLowerCase();
    const user = users[wanted] ?? Object.values(users).find((candidate) => candidate.Username.toLowerCase() === lower || email(candidate) === lower);
    if (user) return user;
  }
  return undefined;
}

export async function startCognitoLocal(onCode: (mail: MailedCode) => void): Promise<CognitoLocal> {
  const dir = await mkdtemp(join(tmpdir(), 'rehearsal-cognito-'));
  const dataDir = join(dir, '.cognito', 'db');
  const port = await freePort();
  const bin = createRequire(import.meta.url).resolve('cognito-local/lib/bin/start.js');
  const child: ChildProcess = spawn(process.execPath, [bin], { cwd: dir, env: { ...process.env, PORT: String(port), HOST: '127.0.0.1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  // Its log, only for the message if it exits (read, so that its pipe never fills).
  let tail = '';
  let exited: string | undefined;
  const keepTail = (output: Buffer) => (tail = (tail + output.toString('utf8')).slice(-4000));
  child.stdout!.on('data', keepTail);
  child.stderr!.on('data', keepTail);
  child.on('exit', (code) => (exited = `cognito-local exited with ${code}: ${tail.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'), '').slice(-2000)}`));
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
    mailWait: (operation, body) => {
      const recipient = codeRecipient(operation, body);
      if (recipient === undefined) return undefined;
      const field = CODE_FIELD[operation]!;
      // The code the user holds before this request: the mailed one is the one that replaces it.
      const previous = storedUser(dataDir, recipient)?.[field];
      return async (status) => {
        if (status !== 200) return;
        const until = Date.now() + CODE_WAIT_MS;
        for (;;) {
          const user = storedUser(dataDir, recipient);
          const code = user?.[field];
          const destination = user?.Attributes?.find((attribute) => attribute.Name === 'email')?.Value;
          if (user && code && destination && code !== previous) {
            onCode({ username: user.Username, destination, code });
            return;
          }
          if (Date.now() > until) {
            process.stderr.write(`rehearsal: cognito-local answered ${operation} for ${recipient}, but its data shows no new ${field} after ${CODE_WAIT_MS / 1000} s: no mail\n`);
            return;
          }
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      };
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
