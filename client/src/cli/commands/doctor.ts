/**
 * `agent-ledger doctor [--agent ID]`: for each agent (or one), whether its tool still records:
 * the tool's configuration still holds the hook, the tool would run it (Codex's trust), the
 * service answers, the agent is active there and the key in the agent's directory is the
 * registered, active one. Each failed check says what to fix; exit 1 when any fails.
 */
import { createPublicKey } from 'node:crypto';
import { LedgerClient } from '../../sdk/client.js';
import { LedgerApiError } from '../../sdk/errors.js';
import { readConfig, readKey, type AgentConfig } from '../../local/agent-state.js';
import { agentDir, agentFiles, type AgentPaths } from '../../local/paths.js';
import { hookFileChecks, toolRunsHook, type Check } from '../../install/checks.js';
import { isToolFlag } from '../../tools/flags.js';
import { parseOptions } from '../args.js';
import { savedToken, selectedAgents } from './agent-selection.js';

/** Bounded: doctor must answer even when the service does not. */
const SERVICE_TIMEOUT_MS = 10_000;

export async function doctor(args: string[]): Promise<number> {
  const { values } = parseOptions(args, { agent: { type: 'string' } });
  const ids = selectedAgents(values.agent);
  if (ids.length === 0) return 1;
  const token = savedToken();
  let failed = 0;
  for (const id of ids) {
    const checks = await agentChecks(id, token);
    const bad = checks.filter((check) => !check.ok).length;
    failed += bad;
    process.stdout.write(`agent ${id}: ${bad === 0 ? 'ok' : `${bad} problem${bad === 1 ? '' : 's'}`}\n${checks.map((check) => `  ${check.ok ? 'ok  ' : 'FIX '} ${check.message}`).join('\n')}\n\n`);
  }
  return failed > 0 ? 1 : 0;
}

async function agentChecks(id: string, token: string | undefined): Promise<Check[]> {
  let paths: AgentPaths;
  let config: AgentConfig;
  try {
    paths = agentFiles(agentDir(id));
    config = readConfig(paths);
  } catch (error) {
    return [{ ok: false, message: (error as Error).message }];
  }
  const checks: Check[] = [];
  if (isToolFlag(config.tool)) {
    if (!config.install) checks.push({ ok: false, message: `no hook is installed for ${config.tool}: run \`agent-ledger agent init --tool ${config.tool} --agent-id ${id}\`` });
    checks.push(...hookFileChecks(config));
    const runs = toolRunsHook(config);
    if (runs) checks.push(runs);
  }
  checks.push(...(await serviceChecks(config, paths, token)));
  return checks;
}

async function serviceChecks(config: AgentConfig, paths: AgentPaths, token: string | undefined): Promise<Check[]> {
  const checks: Check[] = [];
  let localKey: string | undefined;
  try {
    localKey = createPublicKey(readKey(paths)).export({ format: 'jwk' }).x;
    checks.push(localKey === config.public_key ? { ok: true, message: `${paths.key} holds the key ${config.kid}` } : { ok: false, message: `${paths.key} is not the key of ${config.kid} in config.json: restore the key file, or register a new agent` });
  } catch (error) {
    checks.push({ ok: false, message: (error as Error).message });
  }
  if (!token) {
    checks.push({ ok: false, message: 'not logged in, so the service cannot be asked: run `agent-ledger login --url URL`' });
    return checks;
  }
  let detail;
  try {
    detail = await new LedgerClient({ url: config.url, token }).getAgent(config.agent_id, { deadline: Date.now() + SERVICE_TIMEOUT_MS });
  } catch (error) {
    if (error instanceof LedgerApiError && error.status === 404) {
      checks.push({ ok: false, message: `the service at ${config.url} does not know agent ${config.agent_id} in this login's organization: log in to organization ${config.org_id}` });
    } else {
      checks.push({ ok: false, message: `the service at ${config.url} does not answer: ${(error as Error).message}` });
    }
    return checks;
  }
  checks.push({ ok: true, message: `the service at ${config.url} answers` });
  const status = detail.agent.status;
  checks.push(status === 'active' ? { ok: true, message: 'the agent is active' } : { ok: false, message: `the agent is ${status}: every tool use is denied${status === 'frozen' ? ' until an owner or security admin unfreezes it' : ''}` });
  const registered = detail.keys.find((key) => key.kid === config.kid);
  if (!registered) checks.push({ ok: false, message: `the service has no key ${config.kid} for this agent: every record would be refused` });
  else if (registered.public_key !== config.public_key || (localKey !== undefined && registered.public_key !== localKey)) {
    checks.push({ ok: false, message: `the key registered as ${config.kid} is not the one in ${paths.key}: every record would be refused` });
  } else if (registered.status !== 'active') checks.push({ ok: false, message: `the key ${config.kid} is ${registered.status} at the service: add a new key to the agent` });
  else checks.push({ ok: true, message: `the key ${config.kid} matches the registered, active key` });
  return checks;
}
