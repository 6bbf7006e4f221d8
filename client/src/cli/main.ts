/**
 * `agent-ledger`: the CLI entry point. Coding tools start the hook on every tool use, so its
 * start-up time is part of every tool call: the hook is the only command in the entry file.
 * The others are one module that is imported on first use: run from source it is
 * ./commands/index.ts, and the published bundle ships it beside this file as
 * dist/commands.cjs (client/build.mjs).
 */
import { CliError } from './errors.js';
import { CLI_VERSION } from './version.js';
import { runHook } from './commands/hook.js';

const commands = () => import('./commands/index.js');

const HELP = `agent-ledger: record what your coding agents do in an agent-ledger service

Usage:
  agent-ledger login --url URL [--token-file FILE]
      Store the service URL and an API token (read from FILE, from stdin when it is not a
      terminal, or from a no-echo prompt; never from the command line) for the URL's origin,
      replacing only that origin's token; it becomes the current login (agent init, export).
      Each token is sent only to its own origin. Says whom the token acts for, the
      organization and when the token expires.
  agent-ledger agent init --tool FLAG [--agent-id ID] [--scope user|project] [--project-dir DIR] [--on-error deny|allow] [--trust]
      Generate a key, register the agent, and install the hook into the tool's settings.
      Prints the agent id. --trust (codex): mark the hook trusted as Codex's /hooks does.
  agent-ledger agent keys --export [--agent ID]
      Print this machine's agents' public keys, from their key files, as the pins an auditor
      passes to \`agent-ledger verify --agent-keys PINS\`.
  agent-ledger agent uninstall --agent ID
      Remove exactly what init installed.
  agent-ledger hook FLAG --agent ID
      The hook itself (the coding tool runs it with its event on stdin).
  agent-ledger status [--agent ID]
      The logins and their tokens' expiry (a warning from 7 days before), then the chain head,
      service status (asked with the token of the agent's own origin) and the last errors of
      one agent or all of them.
  agent-ledger doctor [--agent ID]
      Check that the API tokens are accepted (and how long for), that each agent's origin has
      one (naming the origin that lacks a login), that each agent's tool still
      holds and runs the hook (Codex's trust), that the service answers and the key matches
      the registered one; says what to fix, exit 1 if not.
  agent-ledger submit --agent ID --type T --verb V --target X [--payload-file F]
      Sign and submit one record; prints its receipt and record as JSON.
  agent-ledger verify FILE [--jwks FILE|URL] [--tsa-ca FILE] [--agent-keys PINS] [--since OLDER] [--json]
      Verify a receipt (with its record), a JSON export bundle or a PDF export, offline
      with --jwks FILE. Exit 0 only when everything verifies against the keys you gave;
      3 when nothing failed but no --jwks was given (\`agent-ledger verify --help\`).
      --since OLDER: the export must also extend the earlier export OLDER (same epochs,
      consistent checkpoints, every agent's key history extended). --agent-keys PINS: each
      agent's keys must be the ones \`agent keys --export\` printed on its machine.
  agent-ledger export --from T --to T --format json|pdf [--out FILE] [--agent ID] [--type T]
      Create an export of the organization's records and download it.

Tool flags: augment, claudecode, cline, codex, copilot, cursor, droid, gemini, grok, kimi,
  kirocli, kiroide, letta, opencode, qwen (and sdk, other: an agent without a hook).

Files: AGENT_LEDGER_HOME (default ~/.agent-ledger) holds credentials (one API token per
  service origin, mode 0600) and
  agents/<agent_id>/{config.json,key,chain.json,status-cache.json,errors.log}.
`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'hook':
      return runHook(rest);
    case 'login':
      return (await commands()).login(rest);
    case 'agent': {
      const [sub, ...args] = rest;
      if (sub === 'init') return (await commands()).agentInit(args);
      if (sub === 'uninstall') return (await commands()).agentUninstall(args);
      if (sub === 'keys') return (await commands()).agentKeys(args);
      throw new CliError(`unknown command "agent ${sub ?? ''}": use "agent init", "agent uninstall" or "agent keys"\nRun \`agent-ledger --help\` for usage.`, 2);
    }
    case 'status':
      return (await commands()).status(rest);
    case 'doctor':
      return (await commands()).doctor(rest);
    case 'submit':
      return (await commands()).submit(rest);
    case 'verify':
      return (await commands()).verify(rest);
    case 'export':
      return (await commands()).exportCommand(rest);
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(HELP);
      return 0;
    case '--version':
    case '-v':
      process.stdout.write(`${CLI_VERSION ?? 'dev'}\n`);
      return 0;
    default:
      throw new CliError(`unknown command "${command}"\nRun \`agent-ledger --help\` for usage.`, 2);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    // By name: dist/commands.cjs is a bundle of its own and carries its own copy of the CliError class.
    if (error instanceof Error && error.name === 'CliError') {
      const { exitCode } = error as CliError;
      process.stderr.write(`agent-ledger: ${error.message}\n`);
      process.exitCode = exitCode;
      return;
    }
    const detail = process.env.AGENT_LEDGER_DEBUG && error instanceof Error ? (error.stack ?? error.message) : error instanceof Error ? error.message : String(error);
    process.stderr.write(`agent-ledger: unexpected error: ${detail}\n`);
    process.exitCode = 1;
  },
);
