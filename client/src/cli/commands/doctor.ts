/**
 * `agent-ledger doctor [--agent ID]`: whether each saved API token that matters (the current
 * login's, without --agent, and that of each agent's service origin) still works and how long
 * (a warning from 7 days before its expiry, docs/CLI.md "API token expiry"); whether this CLI
 * is the one the current login's service hands out (cli/self-check.ts); then for each agent (or
 * one), whether its tool still records: the tool's configuration still holds the hook, the
 * hook's CLI exists and runs (and is the one the agent's service hands out), the tool would run
 * it (Codex's trust), the service answers, the agent is active there and the key in the agent's directory is the
 * registered, active one. The service is asked with the token of the agent's own origin only;
 * an origin without one is named, with the `agent-ledger login --url` that fixes it
 * (docs/CLI.md "Several services"). Each failed check says what to fix; exit 1 when any fails. A token
 * the service refuses is "rejected" (with its reason: expired, revoked, rotated), not a
 * service that does not answer.
 */
import { createPublicKey } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { LedgerClient } from '../../sdk/client.js';
import { LedgerApiError } from '../../sdk/errors.js';
import type { Credentials } from '../../local/credentials.js';
import { readConfig, readKey, type AgentConfig } from '../../local/agent-state.js';
import { agentDir, agentFiles, type AgentPaths } from '../../local/paths.js';
import { hookFileChecks, toolRunsHook, type Check } from '../../install/checks.js';
import { isToolFlag } from '../../tools/flags.js';
import { parseOptions } from '../args.js';
import { loginInfo, organizationText, tokenText, userText } from '../login-info.js';
import { hookCliChecks, selfChecks, servedClient, type DoctorCheck, type Served } from '../self-check.js';
import { rejectedText } from '../token-advice.js';
import { agentLogin, agentUrls, loginsToCheck, savedLogins, selectedAgents, type SavedLogins } from './agent-selection.js';

/** Bounded: doctor must answer even when the service does not. */
const SERVICE_TIMEOUT_MS = 10_000;

export async function doctor(args: string[]): Promise<number> {
  const { values } = parseOptions(args, { agent: { type: 'string' } });
  const ids = selectedAgents(values.agent);
  if (ids.length === 0) return 1;
  const saved = savedLogins();
  let failed = 0;
  const report = (title: string, checks: DoctorCheck[]) => {
    const bad = checks.filter((check) => !check.ok).length;
    failed += bad;
    process.stdout.write(`${title}: ${bad === 0 ? 'ok' : `${bad} problem${bad === 1 ? '' : 's'}`}\n${checks.map((check) => `  ${check.ok ? (check.warn ? 'WARN' : 'ok  ') : 'FIX '} ${check.message}`).join('\n')}\n\n`);
  };
  for (const login of loginsToCheck(saved, agentUrls(ids), values.agent === undefined)) report(`login ${login.url}`, await loginChecks(login));
  // What each origin hands out of its client, asked once per origin, and only of an origin with a
  // login (as the other checks: doctor contacts no service it has no token for).
  const served = new Map<string, Promise<Served>>();
  const servedAt = (url: string | undefined) => {
    if (url === undefined || !('login' in agentLogin(saved, url))) return servedClient(undefined);
    if (!served.has(url)) served.set(url, servedClient(url));
    return served.get(url)!;
  };
  const running = realpathSync(process.argv[1]!);
  // This CLI is compared with the current login's service; with --agent, with that agent's.
  const current = values.agent === undefined && 'store' in saved ? saved.store.current : undefined;
  report(`cli ${running}`, selfChecks(running, await servedAt(current ?? agentUrls(ids)[0])));
  for (const id of ids) report(`agent ${id}`, await agentChecks(id, saved, servedAt));
  return failed > 0 ? 1 : 0;
}

/** Whether the saved token works, for whom, and until when. */
async function loginChecks({ url, token }: Credentials): Promise<DoctorCheck[]> {
  const info = await loginInfo(url, token, { deadline: Date.now() + SERVICE_TIMEOUT_MS });
  if (!info.ok && info.rejected) return [{ ok: false, message: rejectedMessage(url, info.error) }];
  if (!info.ok) return [{ ok: false, message: `the service at ${url} does not answer: ${info.error.message}` }];
  const checks: DoctorCheck[] = [
    { ok: true, message: `the API token acts for ${userText(info.profile)}, in organization ${organizationText(info.profile)}` },
    { ok: true, message: `the API token ${tokenText(info)}` },
  ];
  if (info.warning) checks.push({ ok: true, warn: true, message: info.warning });
  return checks;
}

/** "the service at URL answers, but the API token is rejected: expired; make a new one at …" */
function rejectedMessage(url: string, error: LedgerApiError): string {
  return `the service at ${url} answers, but ${rejectedText(error, url)}`;
}

async function agentChecks(id: string, saved: SavedLogins, servedAt: (url: string) => Promise<Served>): Promise<DoctorCheck[]> {
  let paths: AgentPaths;
  let config: AgentConfig;
  try {
    paths = agentFiles(agentDir(id));
    config = readConfig(paths);
  } catch (error) {
    return [{ ok: false, message: (error as Error).message }];
  }
  const checks: DoctorCheck[] = [];
  if (isToolFlag(config.tool)) {
    if (!config.install) checks.push({ ok: false, message: `no hook is installed for ${config.tool}: run \`agent-ledger agent init --tool ${config.tool} --agent-id ${id}\`` });
    checks.push(...hookFileChecks(config));
    if (config.install) checks.push(...hookCliChecks(config.install, await servedAt(config.url)));
    const runs = toolRunsHook(config);
    if (runs) checks.push(runs);
  }
  checks.push(...(await serviceChecks(config, paths, saved)));
  return checks;
}

async function serviceChecks(config: AgentConfig, paths: AgentPaths, saved: SavedLogins): Promise<Check[]> {
  const checks: Check[] = [];
  let localKey: string | undefined;
  try {
    localKey = createPublicKey(readKey(paths)).export({ format: 'jwk' }).x;
    checks.push(localKey === config.public_key ? { ok: true, message: `${paths.key} holds the key ${config.kid}` } : { ok: false, message: `${paths.key} is not the key of ${config.kid} in config.json: restore the key file, or register a new agent` });
  } catch (error) {
    checks.push({ ok: false, message: (error as Error).message });
  }
  // The token of the agent's own origin, never another's: without it, the service is not asked.
  const found = agentLogin(saved, config.url);
  if ('problem' in found) {
    checks.push({ ok: false, message: found.problem });
    return checks;
  }
  const { token } = found.login;
  let detail;
  try {
    detail = await new LedgerClient({ url: config.url, token }).getAgent(config.agent_id, { deadline: Date.now() + SERVICE_TIMEOUT_MS });
  } catch (error) {
    if (error instanceof LedgerApiError && error.status === 401) {
      checks.push({ ok: false, message: rejectedMessage(config.url, error) });
    } else if (error instanceof LedgerApiError && error.status === 404) {
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
