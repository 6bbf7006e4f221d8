/** Schemas shared by many routes (docs/API.md §2 general conventions, §7 error body). */
import * as z from 'zod';
import { ERROR_STATUS } from '../../shared/errors.js';

const errorCodeSchema = z.enum(Object.keys(ERROR_STATUS) as [keyof typeof ERROR_STATUS]);

/** docs/API.md §7: every error has this body. */
export const errorEnvelopeSchema = z
  .object({
    error: z.object({
      code: errorCodeSchema,
      message: z.string(),
      request_id: z.string(),
      /** UNAUTHORIZED only, for an API token the service knows: why it no longer works (docs/API.md §7). */
      reason: z.enum(['expired', 'revoked', 'rotated']).optional(),
    }),
  })
  .meta({ id: 'Error' });

/** Unix milliseconds (docs/API.md §2). */
export const unixMs = z.number().int().nonnegative();
