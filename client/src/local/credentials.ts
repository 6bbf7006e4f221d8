/**
 * `credentials` under AGENT_LEDGER_HOME, mode 0600 (docs/API.md §1: secrets only from
 * owner-readable files or a no-echo prompt): one API token per service origin (origin.ts),
 * each with the URL `login` was given and the token's expiry as `login` learnt it (so that the
 * hook can warn without a request, docs/CLI.md "API token expiry"), and which origin is the
 * current login, the one that commands taking no agent (`agent init`, `export`) talk to.
 *
 *   {"current": "https://a.example", "origins": {"https://a.example": {"url", "token", "expires_at"}}}
 *
 * A token is only ever sent to the origin it is stored under: the hook, `submit`, `doctor`
 * and `status` look up the token of the agent's own origin, and never fall back to another
 * (docs/CLI.md "Several services"). The single-login file of earlier versions, `{url, token,
 * expires_at?}`, is read as one entry for its URL's origin; the next `login` rewrites it.
 */
import { CliError } from '../cli/errors.js';
import { readOwnerOnly, writeFileAtomic } from './files.js';
import { originOrUndefined, serviceOrigin } from './origin.js';
import { credentialsPath } from './paths.js';

/** One origin's login. */
export interface Login {
  /** The URL `login --url` was given (normalised; it may carry a base path), within the origin. */
  url: string;
  token: string;
  /** Unix seconds, null for a token that never expires; absent when the service did not say. */
  expires_at?: number | null;
}

/** A login and the origin it is stored under. */
export interface Credentials extends Login {
  origin: string;
}

export interface CredentialStore {
  /** The origin of the last `login`, when it is in `logins`. */
  current: string | undefined;
  /** Origin → its login. */
  logins: Map<string, Login>;
}

const LOGIN_LATER = 'run `agent-ledger login --url URL`';

/** "no API token for https://a.example (…): run `agent-ledger login --url https://a.example`" */
export function noLoginMessage(origin: string): string {
  return `no API token for ${origin} (a token is sent only to the service that issued it): run \`agent-ledger login --url ${origin}\``;
}

type Loaded = { store: CredentialStore } | { missing: true } | { corrupt: true };

/** The file's logins; throws a CliError for a file that is unsafe to read (others can read it, a link, another user's). */
function load(path: string): Loaded {
  let text: string;
  try {
    text = readOwnerOnly(path, 'credentials');
  } catch (error) {
    if (error instanceof CliError && error.message.startsWith('credentials not found')) return { missing: true };
    throw error;
  }
  const store = parseStore(text);
  return store ? { store } : { corrupt: true };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseLogin(value: unknown): Login | undefined {
  if (!isObject(value) || typeof value.url !== 'string' || typeof value.token !== 'string' || value.token === '') return undefined;
  const expires = value.expires_at;
  return { url: value.url, token: value.token, ...(expires === null || (typeof expires === 'number' && Number.isFinite(expires)) ? { expires_at: expires } : {}) };
}

/** Either format; undefined for anything else, or for an entry whose URL is not in the origin it is stored under. */
export function parseStore(text: string): CredentialStore | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(parsed)) return undefined;
  if (!('origins' in parsed)) {
    // The single-login file of earlier versions.
    const login = parseLogin(parsed);
    const origin = originOrUndefined(login?.url);
    return login && origin ? { current: origin, logins: new Map([[origin, login]]) } : undefined;
  }
  if (!isObject(parsed.origins)) return undefined;
  const logins = new Map<string, Login>();
  for (const [origin, entry] of Object.entries(parsed.origins)) {
    const login = parseLogin(entry);
    if (!login || originOrUndefined(login.url) !== origin) return undefined;
    logins.set(origin, login);
  }
  const current = typeof parsed.current === 'string' && logins.has(parsed.current) ? parsed.current : undefined;
  return { current, logins };
}

function notCredentials(path: string): CliError {
  return new CliError(`${path} is not a credentials file written by agent-ledger; ${LOGIN_LATER} again (it replaces the file)`);
}

/** Every stored login; an empty store when there is no file. Throws a CliError for a file that is unsafe or corrupt. */
export function readCredentialStore(path = credentialsPath()): CredentialStore {
  const loaded = load(path);
  if ('corrupt' in loaded) throw notCredentials(path);
  return 'missing' in loaded ? { current: undefined, logins: new Map() } : loaded.store;
}

/** The login stored for the origin of `url`, if any: never another origin's. */
export function loginFor(store: CredentialStore, url: string): Credentials | undefined {
  const origin = serviceOrigin(url);
  const login = store.logins.get(origin);
  return login ? { ...login, origin } : undefined;
}

/** The login of the origin of `url` (an agent's service); throws a CliError naming that origin when there is none. */
export function credentialsFor(url: string, path = credentialsPath()): Credentials {
  const login = loginFor(readCredentialStore(path), url);
  if (!login) throw new CliError(noLoginMessage(serviceOrigin(url)));
  return login;
}

/** The current login: what commands that take no agent talk to. */
export function readCredentials(path = credentialsPath()): Credentials {
  const loaded = load(path);
  if ('missing' in loaded) throw new CliError(`not logged in (no ${path}): ${LOGIN_LATER} first`);
  if ('corrupt' in loaded) throw notCredentials(path);
  const { current, logins } = loaded.store;
  const login = current === undefined ? undefined : logins.get(current);
  if (current === undefined || !login) throw new CliError(`not logged in (${path} names no current login): ${LOGIN_LATER} first`);
  return { ...login, origin: current };
}

function writeCredentialStore(store: CredentialStore, path = credentialsPath()): void {
  const file = { current: store.current ?? null, origins: Object.fromEntries(store.logins) };
  writeFileAtomic(path, `${JSON.stringify(file, null, 2)}\n`, 0o600);
}

/** Throws the CliError `saveLogin` would for a file that is unsafe to read, before a token is asked for. */
export function checkCredentialsFile(path = credentialsPath()): void {
  load(path);
}

/**
 * Stores `login` under its URL's origin, replacing that origin's entry only, and makes it the
 * current login. A file that is not a credentials file is replaced (`replacedCorrupt`); one
 * that is unsafe to read is not touched (the CliError says how to fix it).
 */
export function saveLogin(login: Login, path = credentialsPath()): { origin: string; replacedCorrupt: boolean } {
  const origin = serviceOrigin(login.url);
  const loaded = load(path);
  const store: CredentialStore = 'store' in loaded ? loaded.store : { current: undefined, logins: new Map() };
  store.logins.set(origin, login);
  store.current = origin;
  writeCredentialStore(store, path);
  return { origin, replacedCorrupt: 'corrupt' in loaded };
}
