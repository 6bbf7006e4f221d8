/**
 * What `agent init` changed in a coding tool's configuration, kept in the agent's
 * config.json so that `agent uninstall` removes exactly that (docs/HOOKS.md: uninstall leaves the
 * user's other settings byte-for-byte intact).
 */

/**
 * - `json` / `toml`: an entry merged into a file the user owns;
 * - `owned`: a file the installer created whole (a plugin, a hook script, a hook file).
 */
export type ChangeKind = 'json' | 'toml' | 'owned';

export interface InstalledFile {
  path: string;
  kind: ChangeKind;
  /** The file's text before install; null when install created it. */
  original: string | null;
  /** SHA-256 (hex) of the file right after install: unchanged since means restore `original` as is. */
  installed_sha256: string;
  /** The outermost folder install created for this file, if any: uninstall removes the folders it left empty, up to this one. */
  created_dir?: string;
  /** `trust`: the file tells the tool to run the hook (Codex's trust entry) rather than holding it. */
  role?: FileRole;
}

/** `hook`: the file holds the hook (the default); `trust`: it makes the tool run it. */
export type FileRole = 'hook' | 'trust';

export interface InstallRecord {
  tool: string;
  scope: 'user' | 'project';
  /** The command line the tool runs (its hash is what Codex trusts). */
  command: string;
  /** The program the hook runs, `[node, cli file]` (install/hook-cli.ts): doctor runs it with --version. Absent in records of earlier versions. */
  cli?: [string, string];
  files: InstalledFile[];
}
