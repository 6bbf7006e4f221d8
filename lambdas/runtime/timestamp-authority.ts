/** The RFC 3161 time-stamping authority (domain/ports.ts TimestampAuthority) when LEDGER_TSA_URL is set; only the sealer imports it (and so pkijs). */
import { Rfc3161Client } from '../adapters/tsa/rfc3161-client.js';
import { config } from '../config.js';
import type { TimestampAuthority } from '../domain/ports.js';
import { once } from '../shared/once.js';

/** undefined means epochs are not anchored. */
export const timestampAuthority = once((): TimestampAuthority | undefined => {
  const url = config().tsaUrl;
  return url ? new Rfc3161Client(url) : undefined;
});
