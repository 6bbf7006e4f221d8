/** Bodies of the epoch endpoints (docs/API.md §2.11, §4.7). */
import * as z from 'zod';
import { unixMs } from './common.js';

/** docs/API.md §2.11, exactly. */
const epochSchema = z
  .object({
    epoch_id: z.string(),
    org_id: z.string(),
    start_time: unixMs,
    end_time: unixMs,
    root_hash: z.string(),
    leaf_count: z.number().int().positive(),
    store_epoch_key: z.string(),
    created_at: unixMs,
    // The organization's append-only epoch log (docs/CHECKPOINTS.md); absent on epochs sealed before it existed.
    epoch_index: z.number().int().nonnegative().optional().describe("The epoch's index in its organization's append-only log: 0, 1, 2, … without gaps (docs/CHECKPOINTS.md)."),
    prev_root_hash: z.string().optional().describe('root_hash of the epoch at epoch_index - 1; 32 zero bytes (b64u) at index 0.'),
    checkpoint: z
      .string()
      .optional()
      .describe("C2SP tlog-checkpoint signed note of the organization's log right after this epoch: origin agent-ledger/<org_id>, size, base64 root, Ed25519 signature by the service key."),
  })
  .meta({ id: 'Epoch' });

/** docs/API.md §2.11 anchor: the RFC 3161 TimeStampToken, base64 (standard alphabet). */
const epochAnchorSchema = z
  .object({ tsa_url: z.string(), tsa_token: z.string(), anchored_at: unixMs })
  .meta({ id: 'EpochAnchor' });

/** Same paging conventions as the audit query (docs/API.md §4.6): `cursor` comes from a previous page. */
export const listEpochsQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().min(1).max(64).optional(),
});

/** Newest first; `cursor` is present only when more epochs exist. */
export const listEpochsResponse = z.object({ epochs: z.array(epochSchema), cursor: z.string().optional() });

export const epochParams = z.strictObject({ epoch_id: z.uuid() });

/** `anchor` is null until the epoch has an RFC 3161 anchor. */
export const getEpochResponse = z.object({ epoch: epochSchema, anchor: epochAnchorSchema.nullable() });
