/** The admin log endpoint (docs/API.md §2.13, §4.6, §8). */
import * as z from 'zod';
import { unixMs } from './common.js';

export const adminEventsQuery = z.object({ limit: z.coerce.number().int().min(1).max(100).default(20) });

const adminEventSchema = z
  .object({
    event_id: z.string(),
    org_id: z.string(),
    actor: z.string(),
    action: z.string(),
    target_type: z.string(),
    target_id: z.string(),
    details: z.string().nullable(),
    created_at: unixMs,
  })
  .meta({ id: 'AdminEvent' });

export const adminEventsResponse = z.object({ events: z.array(adminEventSchema) });
