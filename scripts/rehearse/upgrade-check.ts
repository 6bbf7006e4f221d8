/**
 * `npm run upgrade-check [REF]`: synthesize REF (default: the newest release in
 * releases.json) and the working tree, without bundles, and compare their templates offline
 * (upgrade-diff.ts). Exits 1 when the upgrade would replace or delete stateful resources or
 * change more than one index of a table; prints the migration steps otherwise.
 *
 * REF is a git revision or tag; a release tag this clone does not carry (CI clones may have
 * none) is looked up in releases.json, which records each release's commit.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../lib/paths.js';
import { readAssembly } from './assembly.js';
import { synthesize } from './synth.js';
import { compareAssemblies } from './upgrade-diff.js';

const out = (line: string) => process.stdout.write(`${line}\n`);
const git = (...args: string[]) => execFileSync('git', args, { cwd: PROJECT_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/** The releases and their commits (releases.json), newest last in file order. */
function releases(): Record<string, string> {
  return JSON.parse(readFileSync(join(PROJECT_ROOT, 'releases.json'), 'utf8')) as Record<string, string>;
}

/** REF as a commit: the revision git knows, else the release's recorded commit. */
export function resolveRef(ref: string): string {
  try {
    return git('rev-parse', '--verify', '--quiet', `${ref}^{commit}`);
  } catch {
    const commit = releases()[ref];
    if (!commit) throw new Error(`${ref} is neither a revision of this clone nor a release in releases.json`);
    return git('rev-parse', '--verify', `${commit}^{commit}`);
  }
}

/** The tree of `commit` in a scratch directory, with this checkout's installed packages linked in. */
function checkout(commit: string, into: string): void {
  execFileSync('sh', ['-c', `git archive --format=tar ${commit} | tar -x -C "${into}"`], { cwd: PROJECT_ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(into, 'node_modules'), 'dir');
  for (const workspace of ['protocol', 'client', 'console']) {
    const modules = join(PROJECT_ROOT, workspace, 'node_modules');
    if (existsSync(modules) && existsSync(join(into, workspace)) && !existsSync(join(into, workspace, 'node_modules'))) symlinkSync(modules, join(into, workspace, 'node_modules'), 'dir');
  }
  // The console's build is an asset of the console stack; the template names its hash, not its bytes.
  const dist = join(PROJECT_ROOT, 'console', 'dist');
  if (existsSync(dist) && existsSync(join(into, 'console')) && !existsSync(join(into, 'console', 'dist'))) symlinkSync(dist, join(into, 'console', 'dist'), 'dir');
}

async function main(): Promise<void> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const names = Object.keys(releases());
  const ref = process.argv[2] ?? names[names.length - 1]!;
  const commit = resolveRef(ref);
  mkdirSync(join(PROJECT_ROOT, '.tmp'), { recursive: true });
  const scratch = mkdtempSync(join(PROJECT_ROOT, '.tmp', 'upgrade-check-'));
  try {
    const tree = join(scratch, 'tree');
    mkdirSync(tree);
    checkout(commit, tree);
    out(`upgrade-check: ${ref} (${commit.slice(0, 12)}) → working tree; synthesizing both without bundles…`);
    await Promise.all([synthesize(join(scratch, 'before'), { cwd: tree, bundle: false }), synthesize(join(scratch, 'after'), { bundle: false })]);
    const findings = compareAssemblies(readAssembly(join(scratch, 'before')), readAssembly(join(scratch, 'after')));
    const blockers = findings.filter((finding) => finding.severity === 'blocker');
    const steps = findings.filter((finding) => finding.severity === 'step');
    if (steps.length) {
      out('migration steps:');
      for (const step of steps) out(`  - ${step.stack}: ${step.message}`);
    } else {
      out('migration steps: none (no stateful resource changes)');
    }
    if (blockers.length) {
      out(`upgrade-check FAILED: deploying over ${ref} would lose state:`);
      for (const blocker of blockers) out(`  ✗ ${blocker.stack}: ${blocker.message}`);
      process.exitCode = 1;
    } else {
      out(`upgrade-check passed: the working tree deploys over ${ref} keeping every table, bucket, key, user pool, client and queue`);
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error: unknown) => {
    process.stderr.write(`upgrade-check: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
