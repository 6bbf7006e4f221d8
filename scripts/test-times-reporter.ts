/**
 * A vitest reporter that records how long each project took, for the table scripts/test.ts
 * prints at the end of `npm test`. It writes JSON (ProjectTimes) to the file named by
 * LEDGER_TEST_TIMES and prints nothing itself; the default reporter still prints the run.
 *
 * A project's wall time runs from the start of its first test file to the end of its last:
 * the projects share the workers, so their spans overlap. Each folder of test files (test/e2e,
 * protocol/test, ...) gets the same figures, so the table shows where the time goes.
 */
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/** Wall span and summed file durations of a group of test files (a project, or a folder in it). */
export interface GroupTime {
  files: number;
  tests: number;
  /** From the first file's start to the last file's end, in ms. */
  wallMs: number;
  /** The files' own durations summed (import, setup and tests), in ms: what the group costs the workers. */
  filesMs: number;
}

export interface ProjectTimes {
  projects: Record<string, GroupTime & { folders: Record<string, GroupTime> }>;
}

interface Span {
  start: number;
  end: number;
  files: number;
  tests: number;
  filesMs: number;
}

export default class TestTimesReporter implements Reporter {
  private readonly started = new Map<TestModule, number>();
  private readonly projects = new Map<string, Span>();
  private readonly folders = new Map<string, Map<string, Span>>();

  onTestModuleStart(module: TestModule): void {
    this.started.set(module, Date.now());
  }

  onTestModuleEnd(module: TestModule): void {
    const end = Date.now();
    const start = this.started.get(module) ?? end;
    const diagnostic = module.diagnostic();
    // What the file cost its worker: the module's import (collect), its setup files and its tests.
    const ms = diagnostic.prepareDuration + diagnostic.setupDuration + diagnostic.collectDuration + diagnostic.duration;
    const tests = [...module.children.allTests()].length;
    const project = module.project.name;
    add(this.projects, project, start, end, tests, ms);
    const folders = this.folders.get(project) ?? new Map<string, Span>();
    this.folders.set(project, folders);
    add(folders, folderOf(relative(module.project.config.root, module.moduleId)), start, end, tests, ms);
  }

  onTestRunEnd(): void {
    const file = process.env.LEDGER_TEST_TIMES;
    if (!file) return;
    const times: ProjectTimes = { projects: {} };
    for (const [name, span] of this.projects) {
      const folders = Object.fromEntries([...(this.folders.get(name) ?? [])].map(([folder, f]) => [folder, groupTime(f)]));
      times.projects[name] = { ...groupTime(span), folders };
    }
    writeFileSync(file, JSON.stringify(times));
  }
}

function add(spans: Map<string, Span>, key: string, start: number, end: number, tests: number, ms: number): void {
  const span = spans.get(key);
  if (!span) {
    spans.set(key, { start, end, files: 1, tests, filesMs: ms });
    return;
  }
  span.start = Math.min(span.start, start);
  span.end = Math.max(span.end, end);
  span.files += 1;
  span.tests += tests;
  span.filesMs += ms;
}

const groupTime = (span: Span): GroupTime => ({ files: span.files, tests: span.tests, wallMs: span.end - span.start, filesMs: span.filesMs });

/** `test/e2e/events-outbox.test.ts` → `test/e2e`; `client/test/cli.test.ts` → `client/test`; a file at the root → `.`. */
function folderOf(path: string): string {
  const parts = path.split('/').slice(0, -1);
  return parts.slice(0, 2).join('/') || '.';
}
