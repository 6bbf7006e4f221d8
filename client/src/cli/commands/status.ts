/**
 * `agent-ledger status [--agent ID]`: whom each saved API token that matters (the current
 * login's, without --agent, and that of each agent's service origin) acts for and when it
 * expires (a warning from 7 days before, docs/CLI.md "API token expiry"), then for one agent or every
 * agent under AGENT_LEDGER_HOME, the local chain head, the service's status and head (asked
 * with the token of the agent's own origin only; an origin without one is named, with the
 * `agent-ledger login --url` that fixes it, docs/CLI.md "Several services"), the
 * cached freeze status, whether the tool would run the hook (Codex's trust) and the last
 * errors; exit 1 when something is wrong (a token about to expire is a warning, not that).
 */
import { LedgerClient } from '../../sdk/client.js';
import type { Credentials } from '../../local/credentials.js';
import { lastErrors, readChain, readConfig, readStatusCache, writeStatusCache } from '../../local/agent-state.js';
import { agentDir, agentFiles } from '../../local/paths.js';
import { hookFileChecks, toolRunsHook } from '../../install/checks.js';
import { parseOptions } from '../args.js';
import { loginInfo, organizationText, tokenText, userText } from '../login-info.js';
import { tokenRejection } from '../token-advice.js';
import { agentLogin, agentUrls, loginsToCheck, savedLogins, selectedAgents, type SavedLogins } from './agent-selection.js';

export async function status(args: string[]): Promise<number> {
  const { values } = parseOptions(args, { agent: { type: 'string' }, json: { type: 'boolean' } });
  const ids = selectedAgents(values.agent);
  if (ids.length === 0) return 0;
  const saved = savedLogins();
  let problems = 0;
  for (const credentials of loginsToCheck(saved, agentUrls(ids), values.agent === undefined)) {
    const login = await loginStatus(credentials);
    if (login.problem) problems += 1;
    // --json keeps stdout the agents' array: the login's lines go to stderr there.
    if (values.json) {
      if (login.problem || login.warning) process.stderr.write(`${login.lines.join('\n')}\n`);
    } else process.stdout.write(`${login.lines.join('\n')}\n\n`);
  }
  const reports = [];
  for (const id of ids) {
    const report = await agentStatus(id, saved);
    if (report.problem) problems += 1;
    reports.push(report);
  }
  if (values.json) process.stdout.write(`${JSON.stringify(reports.map(({ lines: _lines, problem: _problem, ...report }) => report), null, 2)}\n`);
  else for (const report of reports) process.stdout.write(`${report.lines.join('\n')}\n\n`);
  return problems > 0 ? 1 : 0;
}

async function loginStatus({ url, token }: Credentials): Promise<{ lines: string[]; problem: boolean; warning: boolean }> {
  const info = await loginInfo(url, token);
  if (info.ok) {
    return {
      lines: [
        `login ${url}`,
        `  acts for    ${userText(info.profile)}`,
        `  org         ${organizationText(info.profile)}`,
        `  token       ${tokenText(info)}`,
        ...(info.warning ? [`  WARNING     ${info.warning}`] : []),
      ],
      problem: false,
      warning: info.warning !== undefined,
    };
  }
  if (info.rejected) return { lines: [`login ${url}`, `  token       ${info.advice}`], problem: true, warning: false };
  // No answer: each agent's lines say so for its own service.
  return { lines: [`login ${url}`, `  token       not checked: ${info.error.message}`], problem: false, warning: false };
}

async function agentStatus(id: string, saved: SavedLogins) {
  const paths = agentFiles(agentDir(id));
  const lines = [`agent ${id}`];
  let problem = false;
  let service: { status: string; seq_no: number; chain_hash: string } | { error: string } | undefined;
  let local: ReturnType<typeof readChain> | { error: string };
  const config = readConfig(paths);
  lines.push(`  tool        ${config.tool}${config.install ? ` (hook installed, ${config.install.scope} scope)` : ' (no hook installed)'}`);
  lines.push(`  service     ${config.url}  organization ${config.org_id}  on-error ${config.on_error}`);
  // A hook the tool will not run records nothing: say so before anything else (Codex's trust).
  const runs = toolRunsHook(config);
  if (runs) {
    lines.push(`  hook        ${runs.message}`);
    if (!runs.ok) problem = true;
  }
  for (const check of hookFileChecks(config).filter((check) => !check.ok)) {
    lines.push(`  hook        ${check.message}`);
    problem = true;
  }
  try {
    local = readChain(paths);
    lines.push(`  local head  ${local ? `seq_no ${local.seq_no}  ${local.chain_hash}` : 'none (fetched from the service at the next submit)'}`);
  } catch (error) {
    local = { error: (error as Error).message };
    lines.push(`  local head  ${local.error}`);
    problem = true;
  }
  // The token of the agent's own origin, never another's.
  const found = agentLogin(saved, config.url);
  if ('login' in found) {
    try {
      const detail = await new LedgerClient({ url: config.url, token: found.login.token }).getAgent(id);
      service = { status: detail.agent.status, seq_no: detail.chain.seq_no, chain_hash: detail.chain.chain_hash };
      writeStatusCache(paths, detail.agent.status);
      lines.push(`  status      ${service.status}`);
      lines.push(`  head        seq_no ${service.seq_no}  ${service.chain_hash}`);
      if (local && !('error' in local) && local.chain_hash !== service.chain_hash) {
        lines.push('  note        the local head is behind the service; the next submit resynchronises it');
      }
    } catch (error) {
      const rejected = tokenRejection(error);
      service = { error: rejected ? `the API token is rejected: ${rejected}` : (error as Error).message };
      lines.push(`  status      unknown: ${service.error}`);
      problem = true;
    }
  } else {
    // Nothing this agent does can be recorded until its origin has a login: a problem.
    const cached = readStatusCache(paths);
    service = { error: found.problem };
    lines.push(`  status      ${cached ? `${cached.status} (cached)` : 'unknown'}: ${found.problem}`);
    problem = true;
  }
  const errors = lastErrors(paths, 5);
  lines.push(errors.length > 0 ? `  last errors\n${errors.map((line) => `    ${line}`).join('\n')}` : '  last errors none');
  return { agent_id: id, tool: config.tool, url: config.url, hook: runs ? { runs: runs.ok, detail: runs.message } : undefined, local, service, errors, lines, problem };
}
