/**
 * One file as install will leave it: what every planner (targets.ts, toml-config.ts,
 * tools/codex-trust.ts) returns and apply.ts writes. It stands alone so that the planners
 * can share it without importing each other.
 */
import type { ChangeKind, FileRole } from './install-record.js';

export interface PlannedFile {
  path: string;
  kind: ChangeKind;
  before: string | undefined;
  after: string;
  /** File mode when install creates it (hook scripts are executable). */
  mode?: number;
  role?: FileRole;
}
