/**
 * The credentials file as a store of one API token per service origin (client/src/local/
 * credentials.ts, origin.ts; docs/CLI.md "Several services"): origins normalised, the
 * single-login file of earlier versions read as one entry for its URL's origin, `login`
 * replacing only its own origin's entry, a lookup that never answers with another origin's
 * token, and a redirect that is an error, not a request to follow.
 */
import { chmodSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { credentialsFor, loginFor, parseStore, readCredentials, readCredentialStore, saveLogin } from '../src/local/credentials.js';
import { serviceOrigin } from '../src/local/origin.js';
import { jsonBody } from '../src/sdk/http.js';
import { LedgerTransportError } from '../src/sdk/errors.js';

const tempFile = () => join(mkdtempSync(join(tmpdir(), 'agent-ledger-store-')), 'credentials');
const readStored = (path: string) => JSON.parse(readFileSync(path, 'utf8'));

describe('service origins', () => {
  it('scheme://host:port: lowercase, default ports dropped, no path, query, fragment or user info', () => {
    expect(serviceOrigin('HTTPS://Ledger.Example.COM:443/api/v1/?x=1#y')).toBe('https://ledger.example.com');
    expect(serviceOrigin('http://127.0.0.1:80/')).toBe('http://127.0.0.1');
    expect(serviceOrigin('http://127.0.0.1:3000')).toBe('http://127.0.0.1:3000');
    expect(serviceOrigin('https://ledger.example.com:80')).toBe('https://ledger.example.com:80'); // not https' default
    expect(serviceOrigin('http://user:secret@ledger.example.com:8080/x')).toBe('http://ledger.example.com:8080');
    expect(serviceOrigin('http://[::1]:3000/')).toBe('http://[::1]:3000');
    expect(serviceOrigin('https://BÜCHER.example/')).toBe('https://xn--bcher-kva.example');
    // Different origins stay different: another port, another scheme, another name for the same host.
    expect(new Set(['http://127.0.0.1:3000', 'http://127.0.0.1:3001', 'https://127.0.0.1:3000', 'http://localhost:3000'].map(serviceOrigin)).size).toBe(4);
    expect(() => serviceOrigin('ftp://ledger.example.com')).toThrow(/not an http\(s\) URL/);
    expect(() => serviceOrigin('ledger.example.com')).toThrow(/not an absolute http\(s\) URL/);
  });
});

describe('the credentials file', () => {
  it('reads the single-login file of earlier versions as one entry for its URL’s origin', () => {
    const store = parseStore(JSON.stringify({ url: 'https://Ledger.Example.com/base', token: 'alt_old', expires_at: 1_900_000_000 }))!;
    expect(store.current).toBe('https://ledger.example.com');
    expect([...store.logins]).toEqual([['https://ledger.example.com', { url: 'https://Ledger.Example.com/base', token: 'alt_old', expires_at: 1_900_000_000 }]]);
    // Without expires_at (a login older than the field): none is made up.
    expect(parseStore(JSON.stringify({ url: 'http://127.0.0.1:3000', token: 't' }))!.logins.get('http://127.0.0.1:3000')).toEqual({ url: 'http://127.0.0.1:3000', token: 't' });

    const path = tempFile();
    writeFileSync(path, JSON.stringify({ url: 'http://127.0.0.1:3000', token: 'alt_a', expires_at: null }), { mode: 0o600 });
    expect(readCredentials(path)).toEqual({ origin: 'http://127.0.0.1:3000', url: 'http://127.0.0.1:3000', token: 'alt_a', expires_at: null });
    expect(credentialsFor('http://127.0.0.1:3000/', path).token).toBe('alt_a');
    expect(() => credentialsFor('http://127.0.0.1:4000', path)).toThrow('no API token for http://127.0.0.1:4000');
  });

  it('login writes the new format, one entry per origin: another origin is added, the same origin (however spelt) replaced', () => {
    const path = tempFile();
    writeFileSync(path, JSON.stringify({ url: 'http://127.0.0.1:3000', token: 'alt_a' }), { mode: 0o600 });
    expect(saveLogin({ url: 'https://b.example/ledger', token: 'alt_b', expires_at: null }, path)).toEqual({ origin: 'https://b.example', replacedCorrupt: false });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readStored(path)).toEqual({
      current: 'https://b.example',
      origins: {
        'http://127.0.0.1:3000': { url: 'http://127.0.0.1:3000', token: 'alt_a' },
        'https://b.example': { url: 'https://b.example/ledger', token: 'alt_b', expires_at: null },
      },
    });

    saveLogin({ url: 'HTTP://127.0.0.1:3000', token: 'alt_a2', expires_at: 1_900_000_000 }, path);
    const stored = readStored(path);
    expect(stored.current).toBe('http://127.0.0.1:3000');
    expect(Object.keys(stored.origins)).toEqual(['http://127.0.0.1:3000', 'https://b.example']);
    expect(stored.origins['http://127.0.0.1:3000']).toEqual({ url: 'HTTP://127.0.0.1:3000', token: 'alt_a2', expires_at: 1_900_000_000 });
    expect(stored.origins['https://b.example'].token).toBe('alt_b');
    expect(readCredentials(path)).toMatchObject({ origin: 'http://127.0.0.1:3000', token: 'alt_a2' });
  });

  it("a lookup answers with the origin's own token or none, never another origin's", () => {
    const path = tempFile();
    saveLogin({ url: 'https://b.example', token: 'alt_b' }, path);
    const store = readCredentialStore(path);
    expect(loginFor(store, 'https://B.example:443/v1')?.token).toBe('alt_b');
    for (const other of ['https://a.example', 'http://b.example', 'https://b.example:8443', 'https://sub.b.example']) {
      expect(loginFor(store, other)).toBeUndefined();
      expect(() => credentialsFor(other, path)).toThrow(`no API token for ${serviceOrigin(other)} (a token is sent only to the service that issued it): run \`agent-ledger login --url ${serviceOrigin(other)}\``);
    }
    // No file at all: the same answer, naming the origin.
    expect(() => credentialsFor('https://a.example', tempFile())).toThrow('no API token for https://a.example');
    expect(() => readCredentials(tempFile())).toThrow(/not logged in \(no .*credentials\): run `agent-ledger login --url URL` first/);
  });

  it('refuses a file whose entry is not in the origin it is stored under, and one that is not a credentials file; login replaces the latter', () => {
    const path = tempFile();
    // An edit that files B's URL under A: the token would go to B when A's entry is used.
    writeFileSync(path, JSON.stringify({ current: 'https://a.example', origins: { 'https://a.example': { url: 'https://b.example', token: 'alt_x' } } }), { mode: 0o600 });
    expect(() => readCredentialStore(path)).toThrow(/is not a credentials file written by agent-ledger/);
    writeFileSync(path, JSON.stringify({ current: null, origins: { ['__proto__']: { url: 'https://a.example', token: 'alt_x' } } }), { mode: 0o600 });
    expect(() => readCredentialStore(path)).toThrow(/is not a credentials file/);
    for (const text of ['{', '[]', '{"origins": []}', '{"url": "https://a.example"}', '{"url": "file:///etc/passwd", "token": "t"}']) {
      writeFileSync(path, text, { mode: 0o600 });
      expect(() => readCredentialStore(path), text).toThrow(/is not a credentials file/);
    }
    expect(saveLogin({ url: 'https://a.example', token: 'alt_a' }, path)).toEqual({ origin: 'https://a.example', replacedCorrupt: true });
    expect(readStored(path)).toEqual({ current: 'https://a.example', origins: { 'https://a.example': { url: 'https://a.example', token: 'alt_a' } } });
  });

  it('login leaves a file others can read alone, saying how to fix it', () => {
    const path = tempFile();
    saveLogin({ url: 'https://a.example', token: 'alt_a' }, path);
    chmodSync(path, 0o644);
    const before = readFileSync(path, 'utf8');
    expect(() => saveLogin({ url: 'https://b.example', token: 'alt_b' }, path)).toThrow(/can be read or changed by others \(mode 644\); fix it with: chmod 600/);
    expect(readFileSync(path, 'utf8')).toBe(before);
  });
});

describe('redirects', () => {
  it('a 3xx answer is an error naming only where it points (its origin), never a request to follow', () => {
    const url = new URL('http://127.0.0.1:3000/v1/operations');
    for (const status of [301, 302, 303, 307, 308]) {
      let thrown: unknown;
      try {
        jsonBody('POST', url, { status, headers: { location: 'https://b.example/v1/operations?X-Amz-Signature=secret' }, body: Buffer.alloc(0) });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(LedgerTransportError);
      expect((thrown as Error).message).toBe(
        `POST /v1/operations: HTTP ${status}, a redirect to https://b.example; not followed (a request, and any API token it carries, goes only to http://127.0.0.1:3000): check the URL`,
      );
    }
  });
});
