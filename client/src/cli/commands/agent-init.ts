/**
 * `agent-ledger agent init --tool FLAG [--agent-id ID] [--scope user|project]
 * [--project-dir DIR] [--on-error deny|allow] [--trust]`: generates the agent's Ed25519 key, registers
 * the agent (integration_type = FLAG), writes its files and installs the hook into the
 * tool's configuration; prints the agent id. Every configuration file is parsed before
 * anything is registered or written, so a file that does not parse stops it cleanly.
 * Running it again for the same agent changes nothing. `--trust` (Codex only) writes the trust
 * entry Codex's /hooks would write; without it, init says loudly that Codex will not run the hook.
 * The hook runs an installed agent-ledger or a copy under AGENT_LEDGER_HOME, never a file inside
 * a source tree (install/hook-cli.ts); an agent whose hook ran another command (an earlier
 * install's) has that hook taken out first, so that the tool runs one hook, not two.
 */
import { createPublicKey, randomBytes } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { homedir, hostname } from 'node:os';
import { resolve } from 'node:path';
import { generateKeyPair, GENESIS } from '@agent-ledger/protocol/core';
import { isApiError, LedgerApiError, LedgerTransportError } from '../../sdk/errors.js';
import { LedgerClient } from '../../sdk/client.js';
import { newAgentKey } from '../../sdk/key-proof.js';
import { ON_ERROR, readConfig, writeChain, writeConfig, type AgentConfig } from '../../local/agent-state.js';
import { readCredentials } from '../../local/credentials.js';
import { exists, writeFileAtomic } from '../../local/files.js';
import { agentDir, agentFiles, ledgerHome } from '../../local/paths.js';
import { HOOKLESS_FLAGS, isToolFlag, TOOL_FLAGS, TOOL_NAMES } from '../../tools/flags.js';
import { applyPlan, undoInstall } from '../../install/apply.js';
import { hookCli } from '../../install/hook-cli.js';
import { ConfigError } from '../../install/config-error.js';
import { checkScope, defaultScope, hookCommandLine, INSTALLERS, type InstallPlan, type Scope } from '../../install/targets.js';
import { oneOf, parseOptions, required } from '../args.js';
import { projectPathProblem } from '../../install/project-paths.js';
import { CliError, usageError } from '../errors.js';

const DEFAULT_HOOK_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_PAYLOAD_BYTES = 256 * 1024;

export async function agentInit(args: string[]): Promise<number> {
  const { values } = parseOptions(args, {
    tool: { type: 'string' },
    'agent-id': { type: 'string' },
    scope: { type: 'string' },
    'project-dir': { type: 'string' },
    'on-error': { type: 'string' },
    trust: { type: 'boolean' },
  });
  const tool = required(values.tool, '--tool');
  if (!isToolFlag(tool) && !(HOOKLESS_FLAGS as readonly string[]).includes(tool)) {
    throw usageError(`unknown tool "${tool}": use one of ${[...TOOL_FLAGS, ...HOOKLESS_FLAGS].join(', ')}`);
  }
  if (values.trust && tool !== 'codex') throw usageError('--trust applies to codex only (Codex runs a hook only once it is trusted)');
  const onError = oneOf(values['on-error'], '--on-error', ON_ERROR, 'deny');
  const agentId = values['agent-id'] ?? generatedAgentId(tool);
  const paths = agentFiles(agentDir(agentId));
  const credentials = readCredentials();

  // The plan parses every file it will touch: a broken one stops us before anything changes.
  let plan: InstallPlan | undefined;
  let program: [string, string] | undefined;
  let scope: Scope = 'user';
  if (isToolFlag(tool)) {
    scope = oneOf(values.scope, '--scope', ['user', 'project'] as const, defaultScope(tool));
    const projectDir = resolve(values['project-dir'] ?? process.cwd());
    const cli = hookCli(realpathSync(process.argv[1]!), ledgerHome());
    const cliPath = cli.path;
    program = [process.execPath, cliPath];
    const hookCommand = hookCommandLine(process.execPath, cliPath, tool, agentId);
    try {
      checkScope(tool, scope);
      replaceEarlierHook(paths, tool, hookCommand);
      plan = INSTALLERS[tool].plan({
        flag: tool,
        agentId,
        scope,
        projectDir,
        home: homedir(),
        env: process.env,
        hookCommand,
        nodePath: process.execPath,
        cliPath,
        agentDir: paths.dir,
        trust: values.trust === true,
      });
    } catch (error) {
      if (error instanceof ConfigError) throw new CliError(error.message);
      throw error;
    }
    // A hostile repository's links must not make us read or write outside it (project-paths.ts).
    if (scope === 'project') {
      for (const file of plan.files) {
        const problem = projectPathProblem(projectDir, file.path);
        if (problem !== null) throw new CliError(`refusing to install the hook: ${problem}`);
      }
    }
    process.stderr.write(
      cli.source === 'path'
        ? `the hook runs ${cliPath} (agent-ledger on PATH): upgrading it upgrades the hook\n`
        : `the hook runs ${cliPath}, a copy of this CLI that \`agent init\` keeps; \`npm install -g\` of the service's tarball puts agent-ledger on PATH for good (docs/CLI.md)\n`,
    );
  } else if (values.scope !== undefined || values['project-dir'] !== undefined) {
    throw usageError(`--scope and --project-dir only apply to coding tools; "${tool}" has no hook`);
  }

  let config: AgentConfig;
  if (exists(paths.config)) {
    config = readConfig(paths);
    if (config.tool !== tool) throw new CliError(`agent ${agentId} is already set up here for ${config.tool}; pick another --agent-id`);
  } else {
    config = await register(agentId, tool, onError, credentials.url, credentials.token, paths);
  }

  if (plan) {
    const written = applyPlan(plan);
    const previous = config.install?.files ?? [];
    config.install = {
      tool,
      scope,
      command: plan.command,
      ...(program ? { cli: program } : {}),
      files: [...previous, ...written.filter((file) => !previous.some((p) => p.path === file.path))],
    };
    writeConfig(paths, config);
    const name = TOOL_NAMES[tool as keyof typeof TOOL_NAMES];
    const changed = plan.files.filter((file) => file.before !== file.after).map((file) => file.path);
    process.stderr.write(
      changed.length > 0
        ? `${name}: hook installed (${scope} scope) in\n${changed.map((path) => `  ${path}`).join('\n')}\n`
        : `${name}: hook already installed (${scope} scope); nothing changed\n`,
    );
    for (const note of plan.notes) process.stderr.write(`note: ${note}\n`);
    for (const warning of plan.warnings ?? []) process.stderr.write(`\nWARNING: ${warning}\n\n`);
  }
  process.stdout.write(`${agentId}\n`);
  return 0;
}

async function register(agentId: string, tool: string, onError: 'deny' | 'allow', url: string, token: string, paths: ReturnType<typeof agentFiles>): Promise<AgentConfig> {
  const { publicKey, privateKey } = generateKeyPair();
  const kid = `${agentId.slice(0, 100)}-k1`;
  const client = new LedgerClient({ url, token });
  let orgId: string;
  try {
    // The key proves its possession to the service (docs/PROTOCOL.md "Proof of possession"),
    // which needs the organization it signs for before the agent exists.
    const { user } = await client.me();
    const key = newAgentKey(privateKey, { orgId: user.org_id ?? '', agentId, kid });
    const { agent } = await client.registerAgent({ agent_id: agentId, integration_type: tool as 'other', keys: [key] });
    orgId = agent.org_id;
  } catch (error) {
    if (isApiError(error, 'VALIDATION_ERROR') && error.status === 409) {
      throw new CliError(`${error.message.replace(/^VALIDATION_ERROR: /, '')} in your organization (it has no files in ${paths.dir}); choose another --agent-id`);
    }
    if (error instanceof LedgerApiError || error instanceof LedgerTransportError) throw new CliError(`could not register the agent at ${url}: ${error.message}`);
    throw error;
  }
  if (createPublicKey(privateKey).export({ format: 'jwk' }).x !== publicKey) throw new CliError('internal error: generated key pair does not match');
  writeFileAtomic(paths.key, privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(), 0o600);
  const config: AgentConfig = {
    agent_id: agentId,
    org_id: orgId,
    url,
    tool,
    on_error: onError,
    kid,
    public_key: publicKey,
    timeout_ms: DEFAULT_HOOK_TIMEOUT_MS,
    max_payload_bytes: DEFAULT_MAX_PAYLOAD_BYTES,
    created_at: new Date().toISOString(),
  };
  writeConfig(paths, config);
  writeChain(paths, { seq_no: 0, chain_hash: GENESIS });
  return config;
}

/**
 * When this agent's hook was installed with another command (a CLI inside a repository clone,
 * an earlier Node), takes that hook out, as `agent uninstall` does, before the new one goes in.
 */
function replaceEarlierHook(paths: ReturnType<typeof agentFiles>, tool: string, command: string): void {
  if (!exists(paths.config)) return;
  const config = readConfig(paths);
  if (config.tool !== tool || !config.install || config.install.command === command) return;
  for (const result of undoInstall(config.install, config.agent_id)) process.stderr.write(`earlier hook: ${result.outcome} ${result.path}${result.detail ? ` (${result.detail})` : ''}\n`);
  process.stderr.write(`earlier hook (${config.install.command}) taken out\n`);
  delete config.install;
  writeConfig(paths, config);
}

function generatedAgentId(tool: string): string {
  const host = hostname().split('.')[0]!.replace(/[^A-Za-z0-9-]/g, '').slice(0, 40) || 'host';
  return `${tool}-${host}-${randomBytes(3).toString('hex')}`;
}
