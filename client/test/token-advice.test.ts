/**
 * What the CLI says about its API token (docs/CLI.md "API token expiry"): the expiry as a
 * date and a duration, the warning from 7 days before it, a token id told from a token, and
 * the UNAUTHORIZED reasons (docs/API.md §7) read from the service's error envelope.
 */
import { describe, expect, it } from 'vitest';
import { jsonBody } from '../src/sdk/http.js';
import { LedgerApiError } from '../src/sdk/errors.js';
import { duration, expiryText, expiryWarning, looksLikeTokenId, rejectedText, rejectionAdvice, tokenRejection, tokensPage } from '../src/cli/token-advice.js';

const NOW = Date.parse('2026-12-03T12:00:00Z');
const HOUR = 3600;
const DAY = 24 * HOUR;
const at = (seconds: number) => NOW / 1000 + seconds;

describe('expiry text', () => {
  it('names the UTC minute and the time left, rounded down; never and unknown are said as such', () => {
    expect(expiryText(Date.parse('2027-03-02T12:00:00Z') / 1000, NOW)).toBe('expires 2027-03-02 12:00 UTC, in 89 days');
    expect(expiryText(at(DAY + HOUR), NOW)).toBe('expires 2026-12-04 13:00 UTC, in 1 day');
    expect(expiryText(at(5 * HOUR + 59 * 60), NOW)).toBe('expires 2026-12-03 17:59 UTC, in 5 hours');
    expect(expiryText(at(-60), NOW)).toBe('expired 2026-12-03 11:59 UTC');
    expect(expiryText(null, NOW)).toBe('never expires');
    expect(expiryText(undefined, NOW)).toBeUndefined();
    expect([duration(59_999), duration(60_000), duration(2 * DAY * 1000)]).toEqual(['0 minutes', '1 minute', '2 days']);
  });

  it('warns from 7 days before the expiry, with the console page and the login command', () => {
    const url = 'https://ledger.example.com/api';
    expect(expiryWarning(at(7 * DAY + 1), url, NOW)).toBeUndefined();
    expect(expiryWarning(null, url, NOW)).toBeUndefined();
    expect(expiryWarning(undefined, url, NOW)).toBeUndefined();
    expect(expiryWarning(at(7 * DAY), url, NOW)).toMatch(/^the API token expires in 7 days \(2026-12-10 12:00 UTC\)/);
    expect(expiryWarning(at(3 * DAY), url, NOW)).toBe(
      'the API token expires in 3 days (2026-12-06 12:00 UTC); make a new one at https://ledger.example.com/tokens and run `agent-ledger login --url https://ledger.example.com/api`',
    );
    expect(expiryWarning(at(-1), url, NOW)).toMatch(/^the API token has expired \(2026-12-03 11:59 UTC\); make a new one at/);
    expect(tokensPage('http://127.0.0.1:3000')).toBe('http://127.0.0.1:3000/tokens');
  });
});

describe('token ids and rejections', () => {
  it('tells a token id (a UUID) from a token', () => {
    expect(looksLikeTokenId('0b5f3c1e-9a7d-4c2b-8e6f-1a2b3c4d5e6f')).toBe(true);
    expect(looksLikeTokenId('0B5F3C1E-9A7D-4C2B-8E6F-1A2B3C4D5E6F')).toBe(true);
    expect(looksLikeTokenId(`alt_${'A'.repeat(43)}`)).toBe(false);
    expect(looksLikeTokenId('not-a-token')).toBe(false);
  });

  it('reads error.reason of a 401 from the envelope, and only the three reasons of docs/API.md §7', () => {
    const answer = (status: number, error: Record<string, unknown>) => {
      try {
        jsonBody('GET', new URL('http://127.0.0.1/v1/auth/me'), { status, headers: {}, body: Buffer.from(JSON.stringify({ error })) });
      } catch (thrown) {
        return thrown;
      }
      throw new Error('no error thrown');
    };
    const expired = answer(401, { code: 'UNAUTHORIZED', message: 'this API token has expired', request_id: 'r1', reason: 'expired' });
    expect(expired).toBeInstanceOf(LedgerApiError);
    expect((expired as LedgerApiError).reason).toBe('expired');
    expect(tokenRejection(expired)).toBe('expired');
    expect(tokenRejection(answer(401, { code: 'UNAUTHORIZED', message: 'x', reason: 'revoked' }))).toBe('revoked');
    expect(tokenRejection(answer(401, { code: 'UNAUTHORIZED', message: 'x', reason: 'rotated' }))).toBe('rotated');
    expect(tokenRejection(answer(401, { code: 'UNAUTHORIZED', message: 'x', reason: 'sunspots' }))).toBeUndefined();
    expect(tokenRejection(answer(401, { code: 'UNAUTHORIZED', message: 'x' }))).toBeUndefined();
    expect(tokenRejection(answer(403, { code: 'FORBIDDEN', message: 'x', reason: 'expired' }))).toBeUndefined();
    expect(tokenRejection(new Error('expired'))).toBeUndefined();

    const url = 'http://127.0.0.1:3000';
    expect(rejectedText(expired as LedgerApiError, url)).toBe('the API token is rejected: expired; make a new one at http://127.0.0.1:3000/tokens and run `agent-ledger login --url http://127.0.0.1:3000`');
    expect(rejectionAdvice('revoked', url)).toMatch(/^the API token was revoked; make a new one at http:\/\/127\.0\.0\.1:3000\/tokens and run `agent-ledger login/);
    expect(rejectionAdvice('rotated', url)).toMatch(/^the API token was replaced by rotation and its grace period is over; run `agent-ledger login --url http:\/\/127\.0\.0\.1:3000` with its replacement/);
    expect(rejectedText(answer(401, { code: 'UNAUTHORIZED', message: 'missing, invalid or expired credentials' }) as LedgerApiError, url)).toBe(
      'the API token is rejected (UNAUTHORIZED: missing, invalid or expired credentials); make an API token at http://127.0.0.1:3000/tokens and run `agent-ledger login --url http://127.0.0.1:3000`',
    );
  });
});
