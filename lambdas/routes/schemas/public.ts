/** Bodies of the public endpoints (docs/API.md §4.11). */
import * as z from 'zod';

export const healthResponse = z.object({ status: z.literal('ok'), version: z.string() });

export const dependencyNames = ['table', 'object_store', 'signer', 'queue'] as const;

const dependencyHealth = z.object({
  status: z.enum(['ok', 'down']),
  latency_ms: z.number().nonnegative(),
  error: z.string().optional(),
});

export const deepHealthResponse = z.object({
  status: z.enum(['ok', 'degraded']),
  version: z.string(),
  dependencies: z.object({
    table: dependencyHealth,
    object_store: dependencyHealth,
    signer: dependencyHealth,
    queue: dependencyHealth,
  }),
});

/** docs/PROTOCOL.md, Receipt: each key `{kty, crv, x, kid, alg, use}`. */
export const jwksResponse = z.object({
  keys: z.array(
    z.object({
      kty: z.literal('OKP'),
      crv: z.literal('Ed25519'),
      x: z.string(),
      kid: z.string(),
      alg: z.literal('EdDSA'),
      use: z.literal('sig'),
    }),
  ),
});

export const openApiResponse = z.record(z.string(), z.unknown());
