/**
 * Following an export as a client does (docs/API.md §4.8): wait until the worker is done, then
 * download through the 302 to the presigned URL, which s3rver serves.
 */
import { expect } from 'vitest';
import type { Api, Loose } from './http-client.js';

/**
 * Polls GET /v1/exports/:id until the in-process worker is through with the export (the
 * events queue has no consumer in these tests, so the queue as a whole never drains); fails
 * unless it ended done.
 */
export async function exportWhenDone(api: Api, exportId: string, timeoutMs = 60_000): Promise<Loose> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await api('GET', `/v1/exports/${exportId}`);
    expect(res.status).toBe(200);
    if (res.body.export.status === 'done' || res.body.export.status === 'failed' || Date.now() > deadline) {
      expect(res.body.export.status, JSON.stringify(res.body.export)).toBe('done');
      return res.body;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** GET .../download, then the presigned URL it redirects to. */
export async function downloadExport(api: Api, exportId: string, format: 'json' | 'pdf'): Promise<{ bytes: Uint8Array; disposition: string | null; location: string }> {
  const redirect = await api('GET', `/v1/exports/${exportId}/download`);
  expect(redirect.status, JSON.stringify(redirect.body)).toBe(302);
  const location = redirect.headers.get('location') as string;
  expect(location).toContain(`response-content-disposition=attachment%3B%20filename%3Dexport-${exportId}.${format}`);
  expect(location).toMatch(/X-Amz-Expires=300(&|$)/);
  const file = await fetch(location);
  expect(file.status).toBe(200);
  return { bytes: new Uint8Array(await file.arrayBuffer()), disposition: file.headers.get('content-disposition'), location };
}

/**
 * Expects a verifier's report to be valid, saying why when it is not: the failed findings
 * (where, check, reason) and `cannot_process`, rather than only "expected false to be true".
 */
export function expectVerified(report: { valid: boolean; cannot_process: string | null; findings: { where: string; check: string; status: string; reason: string }[] }): void {
  const failed = report.findings.filter((f) => f.status === 'failed').map((f) => `${f.where} ${f.check}: ${f.reason}`);
  expect({ cannot_process: report.cannot_process, failed }).toEqual({ cannot_process: null, failed: [] });
  expect(report.valid).toBe(true);
}
