/**
 * The real coding tools, installed from npm at the versions pinned in versions.json into
 * `~/.cache/agent-ledger/tools/<package>@<version>` (AGENT_LEDGER_TOOLS_CACHE moves it) and
 * reused between runs: upgrading a tool is a one-line change of versions.json, and the next
 * run installs the new version beside the old.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export interface PinnedTool {
  package: string;
  version: string;
  bin: string;
}

export const PINNED: Record<string, PinnedTool> = JSON.parse(readFileSync(new URL('./versions.json', import.meta.url), 'utf8')) as Record<string, PinnedTool>;

export const cacheRoot = () => process.env.AGENT_LEDGER_TOOLS_CACHE ?? join(homedir(), '.cache', 'agent-ledger', 'tools');

/** `@scope/name@1.2.3` as a folder name: `scope+name@1.2.3`. */
const folderOf = (tool: PinnedTool) => `${tool.package.replace(/^@/, '').replace('/', '+')}@${tool.version}`;

/** The tool's executable, installing the pinned version first when the cache lacks it. */
export function toolBin(flag: string): string {
  const tool = PINNED[flag];
  if (!tool) throw new Error(`no pinned version for ${flag} in test/tools/versions.json`);
  const dir = join(cacheRoot(), folderOf(tool));
  const bin = join(dir, 'node_modules', '.bin', tool.bin);
  if (existsSync(join(dir, '.installed')) && existsSync(bin)) return bin;
  // Install beside the final folder and move it in once complete: a run killed halfway leaves no half-installed tool.
  const staging = `${dir}.partial-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  writeFileSync(join(staging, 'package.json'), '{"private":true}\n');
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', `${tool.package}@${tool.version}`], { cwd: staging, stdio: 'inherit', timeout: 900_000 });
  writeFileSync(join(staging, '.installed'), `${tool.package}@${tool.version}\n`);
  rmSync(dir, { recursive: true, force: true });
  renameSync(staging, dir);
  return bin;
}
