/**
 * `agent-ledger agent uninstall --agent ID`: removes exactly what `agent init` installed in
 * the tool's configuration (files restored byte for byte, or removed when init created them).
 * The agent's key and chain state stay, so that its records remain attributable; the
 * service keeps every record.
 */
import { readConfig, writeConfig } from '../../local/agent-state.js';
import { agentDir, agentFiles } from '../../local/paths.js';
import { undoInstall } from '../../install/apply.js';
import { parseOptions, required } from '../args.js';

export async function agentUninstall(args: string[]): Promise<number> {
  const { values } = parseOptions(args, { agent: { type: 'string' } });
  const agentId = required(values.agent, '--agent');
  const paths = agentFiles(agentDir(agentId));
  const config = readConfig(paths);
  if (!config.install || config.install.files.length === 0) {
    process.stderr.write(`agent ${agentId}: no hook installed; nothing to remove\n`);
    return 0;
  }
  const results = undoInstall(config.install, agentId);
  let failed = false;
  for (const result of results) {
    const detail = result.detail ? ` (${result.detail})` : '';
    process.stderr.write(`${result.outcome.padEnd(13)} ${result.path}${detail}\n`);
    if (result.outcome === 'left alone' && !result.detail?.startsWith('the agent-ledger entry is no longer')) failed = true;
  }
  delete config.install;
  writeConfig(paths, config);
  process.stderr.write(`agent ${agentId}: hook removed. Its key and chain state stay in ${paths.dir} (delete that directory to forget the agent here; the service keeps its records).\n`);
  return failed ? 1 : 0;
}
