/**
 * GET /v1/health/deep (SPEC.md §4.10; shape fixed by the foundation issue): probes each
 * dependency in parallel with a per-probe timeout and answers 503 when any is down, so a
 * load balancer or an operator sees which part failed and how slow each one is.
 */
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { HeadBucketCommand } from '@aws-sdk/client-s3';
import { config } from '../../config.js';
import { routes } from '../../routes/routes.js';
import { dynamo, queue, s3, signer } from '../../store/clients.js';
import type { dependencyNames } from '../../routes/schemas/public.js';
import { defineHandler } from '../define-handler.js';
import { probe } from '../probe.js';

type DependencyName = (typeof dependencyNames)[number];

const probes: Record<DependencyName, () => Promise<unknown>> = {
  // A point read of a key that never exists: exercises the same path as real requests.
  table: () =>
    dynamo().send(
      new GetItemCommand({ TableName: config().tableName, Key: { pk: { S: 'HEALTH' }, sk: { S: 'HEALTH' } } }),
    ),
  object_store: () => s3().send(new HeadBucketCommand({ Bucket: config().dataBucket })),
  signer: () => signer().ping(),
  queue: () => queue().ping(),
};

export const handler = defineHandler(routes.deepHealth, async () => {
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
