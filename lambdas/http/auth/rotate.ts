/** POST /v1/auth/rotate (docs/API.md §4.1, API token only): a new token; the presented one keeps working through the grace period. */
import { LedgerError } from '../../shared/errors.js';
import { rotateApiToken } from '../../domain/identity/tokens.js';
import { authRoutes } from '../../routes/route-table/auth.js';
import { defineHandler } from '../define-handler.js';
import { presentedHash } from './presented-hash.js';

export const handler = defineHandler(authRoutes.rotateToken, async ({ caller, event }) => {
  const hash = presentedHash(event);
  if (!hash) throw new LedgerError('UNAUTHORIZED', 'missing, invalid or expired credentials');
  return { body: await rotateApiToken(caller, hash) };
});
