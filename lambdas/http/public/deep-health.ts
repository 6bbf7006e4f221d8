/**
 * GET /v1/health/deep (docs/API.md §4.11): probes each
 * dependency in parallel with a per-probe timeout and answers 503 when any is down, so a
 * load balancer or an operator sees which part failed and how slow each one is.
 */
import { config } from '../../config.js';
import { publicRoutes } from '../../routes/route-table/public.js';
import { queue } from '../../runtime/queue.js';
import { signer } from '../../runtime/signer.js';
import { pingDataBucket, pingTable } from '../../store/health.js';
import type { dependencyNames } from '../../routes/schemas/public.js';
import { definePublicHandler } from '../define-public-handler.js';
import { probe } from '../probe.js';

type DependencyName = (typeof dependencyNames)[number];

const probes: Record<DependencyName, () => Promise<unknown>> = {
  table: pingTable,
  object_store: pingDataBucket,
  signer: () => signer().ping(),
  queue: () => queue().ping(),
};

export const handler = definePublicHandler(publicRoutes.deepHealth, async () => {
  const names = Object.keys(probes) as DependencyName[];
  const results = await Promise.all(names.map((name) => probe(probes[name])));
  const dependencies = Object.fromEntries(names.map((name, index) => [name, results[index]])) as Record<
    DependencyName,
    Awaited<ReturnType<typeof probe>>
  >;
  const healthy = results.every((result) => result.status === 'ok');
  return {
    status: healthy ? 200 : 503,
    body: { status: healthy ? ('ok' as const) : ('degraded' as const), version: config().version, dependencies },
  };
});
