/**
 * `agent-ledger agent keys --export [--agent ID]`: the public keys of this machine's agents, read
 * from their local private key files (not from the service), as the JSON an auditor passes to
 * `agent-ledger verify --agent-keys PINS` (docs/EXPORT.md "Pinned agent keys"): agent id → a
 * list of Ed25519 JWKs, each with `kid` the agent's key id and `x5t#S256`-free RFC 7638
 * thumbprint as `thumbprint`. A key the service put in an export in place of one of these
 * then fails verification, however the export is signed.
 */
import { createPublicKey } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { keyThumbprint } from '@agent-ledger/protocol';
import { readConfig, readKey } from '../../local/agent-state.js';
import { agentDir, agentFiles, ledgerHome } from '../../local/paths.js';
import { parseOptions } from '../args.js';
import { usageError } from '../errors.js';

const AGENT_KEYS_HELP = `agent-ledger agent keys --export [--agent ID]

Print the public keys of this machine's agents (all of them, or --agent ID), read from their
local key files, as JSON: {"<agent id>": [{"kty": "OKP", "crv": "Ed25519", "x": ..., "kid": ...,
"thumbprint": ...}]}. Hand it to an auditor, who pins it with
\`agent-ledger verify EXPORT --jwks JWKS --agent-keys PINS.json\`.
`;

/** One agent's pin: the public JWK of its local key file. */
function agentPin(id: string): { kty: 'OKP'; crv: 'Ed25519'; x: string; kid: string; thumbprint: string } {
  const paths = agentFiles(agentDir(id));
  const config = readConfig(paths);
  const x = createPublicKey(readKey(paths)).export({ format: 'jwk' }).x as string;
  return { kty: 'OKP', crv: 'Ed25519', x, kid: config.kid, thumbprint: keyThumbprint(x) };
}

export async function agentKeys(args: string[]): Promise<number> {
  const { values } = parseOptions(args, { export: { type: 'boolean' }, agent: { type: 'string' }, help: { type: 'boolean', short: 'h' } });
  if (values.help) {
    process.stdout.write(AGENT_KEYS_HELP);
    return 0;
  }
  if (!values.export) throw usageError('agent keys needs --export (it prints the pins an auditor passes to verify --agent-keys)');
  const home = ledgerHome();
  let ids: string[];
  try {
    ids = values.agent ? [values.agent] : readdirSync(join(home, 'agents')).sort();
  } catch {
    ids = [];
  }
  const pins = Object.fromEntries(ids.map((id) => [id, [agentPin(id)]]));
  process.stdout.write(`${JSON.stringify(pins, null, 2)}\n`);
  return 0;
}
