/** The activity statistics endpoint (docs/API.md §4.11): operations per hour or day, per agent. */
import * as z from 'zod';
import { unixMs } from './common.js';
import { agentIdSchema } from './agents.js';
import { BUCKET_MS, MAX_BUCKETS } from '../../shared/stats-buckets.js';

const boundary = z.coerce.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

export const activityQuery = z
  .strictObject({
    bucket: z.enum(['hour', 'day']).describe('UTC hours or UTC days'),
    from: boundary.describe('Unix ms, inclusive: a multiple of the bucket'),
    to: boundary.describe('Unix ms, exclusive: a multiple of the bucket, after from'),
    agent_id: agentIdSchema.optional().describe("one agent's activity and events only"),
    top: z.coerce.number().int().min(1).max(20).default(5).describe('agents given a series of their own, the most active first; the rest are summed in other'),
  })
  .superRefine((query, ctx) => {
    const size = BUCKET_MS[query.bucket];
    for (const name of ['from', 'to'] as const) {
      if (query[name] % size !== 0) ctx.addIssue({ code: 'custom', path: [name], message: `must be a multiple of ${size} (the start of a UTC ${query.bucket})` });
    }
    if (query.from >= query.to) ctx.addIssue({ code: 'custom', path: ['from'], message: 'must be before to' });
    else if ((query.to - query.from) / size > MAX_BUCKETS[query.bucket]) {
      ctx.addIssue({ code: 'custom', path: ['to'], message: `at most ${MAX_BUCKETS[query.bucket]} ${query.bucket}s from from` });
    }
  });

const counts = z.array(z.number().int().nonnegative()).describe('one count per bucket, in the order of buckets');

const statusEventSchema = z
  .object({
    event_id: z.string(),
    action: z.enum(['agent.freeze', 'agent.unfreeze', 'agent.revoke', 'key.revoke']),
    agent_id: z.string(),
    kid: z.string().optional().describe('the revoked key (key.revoke)'),
    actor: z.string(),
    reason: z.string().optional(),
    created_at: unixMs,
  })
  .meta({ id: 'AgentStatusEvent' });

export const activityResponse = z
  .object({
    bucket: z.enum(['hour', 'day']),
    from: unixMs,
    to: unixMs,
    buckets: z.array(unixMs).describe('the start of each bucket, oldest first'),
    totals: counts,
    series: z
      .array(z.object({ agent_id: z.string(), total: z.number().int().nonnegative(), counts }))
      .describe('the `top` most active agents of the range (most operations first, then agent_id), each with its counts'),
    other: z
      .object({ agent_count: z.number().int().nonnegative(), total: z.number().int().nonnegative(), counts })
      .describe('every other agent of the range, summed'),
    events: z.array(statusEventSchema).describe('freezes, unfreezes and revocations in the range, oldest first (at most 500)'),
  })
  .meta({ id: 'ActivityStats' });
