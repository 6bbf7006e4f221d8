/**
 * The repository stands on its own: no tracked file names a path outside it or cites a
 * document it does not have (the rules: test/support/repository-references.ts). A fresh clone
 * has nothing beside it, so a reference that leaves the root is a reference a reader cannot
 * follow and a test that cannot run. .ci/run repeats the sharpest of these checks with
 * `git grep` before installing anything.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { commentPathProblems, DocumentSections, formatProblems, referenceProblems, sectionProblems, TrackedTree } from '../support/repository-references.js';
import { hasReadableComments, sourceComments } from '../support/source-comments.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Extensions that are never text; anything else is read and skipped if it holds a NUL byte. */
const BINARY = /\.(?:png|jpe?g|gif|ico|webp|pdf|woff2?|ttf|otf|gz|tgz|zip|jar|der|p12|bin)$/i;

function trackedFiles(): string[] {
  return execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
    .split('\0')
    .filter((path) => path !== '');
}

// Fake references are assembled from parts so that this file itself stays clean.
const md = (path: string) => `${path}.md`;
const sibling = ['..', 'shared', md('SPEC')].join('/');
const missing = md('docs/NOPE');
const notes = md('NOTES');

/** The tracked paths and the text of every tracked text file, read once for this file's tests. */
const tracked = (() => {
  let read: { paths: string[]; tree: TrackedTree; texts: (readonly [string, string])[] } | undefined;
  return () => {
    if (read) return read;
    const paths = trackedFiles();
    const texts = paths
      .filter((path) => path !== 'package-lock.json' && !BINARY.test(path) && existsSync(`${ROOT}/${path}`))
      .map((path) => [path, readFileSync(`${ROOT}/${path}`)] as const)
      .filter(([, bytes]) => !bytes.includes(0))
      .map(([path, bytes]) => [path, bytes.toString('utf8')] as const);
    return (read = { paths, tree: new TrackedTree(paths), texts });
  };
})();

describe('references in tracked files', () => {
  it('finds no path outside the repository and no missing document', () => {
    const { paths, tree, texts } = tracked();
    const sections = new DocumentSections(Object.fromEntries(texts.filter(([path]) => path.endsWith('.md'))));
    // CHANGELOG.md tells what was, so it may cite a section that has moved since.
    const problems = texts.flatMap(([path, text]) => [...referenceProblems(path, text, tree), ...(path === 'CHANGELOG.md' ? [] : sectionProblems(path, text, sections))]);
    expect(formatProblems(problems)).toBe('');
    // The walk really read the tree: the documents it checks citations against are in it.
    expect(paths).toEqual(expect.arrayContaining(['README.md', 'docs/API.md', 'docs/PROTOCOL.md', 'test/system/repository-references.test.ts']));
  });

  // Every source file is parsed for its comments: seconds of CPU, more on a loaded machine.
  it('finds no code comment that names a file the repository does not have', () => {
    const { tree, texts } = tracked();
    const sources = texts.filter(([path]) => hasReadableComments(path) && !path.startsWith('client/src/generated/'));
    const problems = sources.flatMap(([path, text]) => commentPathProblems(path, sourceComments(path, text), tree));
    expect(formatProblems(problems)).toBe('');
    // The walk really read source files of each kind whose comments it checks.
    expect(sources.map(([path]) => path)).toEqual(expect.arrayContaining(['test/support/repository-references.ts', 'scripts/test-python.sh', 'python/src/agent_ledger/merkle.py']));
  }, 120_000);
});

describe('sectionProblems', () => {
  const sections = new DocumentSections({
    [md('README')]: '# x\n## Quick start\n',
    [md('docs/DEPLOY')]: '# Deploy\n## Rehearsal: the deployed shape\n**Rotating the receipt key.** Deploy with...\n',
    [md('docs/COST')]: '## The hot path\n3. **Caches per process**, bounded\n',
    [md('docs/API')]: '## 4.5 Operations\n',
  });

  it('reports a section the cited document does not have, the README cited without its extension too', () => {
    const text = `see ${md('docs/DEPLOY')}, Upgrades and ${md('docs/COST')} "Indexes"\n(${'README'}, Webhooks)\n`;
    expect(sectionProblems(notes, text, sections).map((p) => [p.line, p.reference])).toEqual([
      [1, `${md('docs/DEPLOY')}, Upgrades and`],
      [1, `${md('docs/COST')}, Indexes`],
      [2, `${md('README')}, Webhooks`],
    ]);
  });

  it('accepts headings by their start, numbered headings, bold lead-ins, and documents it does not know', () => {
    const text = [
      `(${md('docs/DEPLOY')}, Rehearsal) and ${md('docs/DEPLOY')} "Rotating the receipt key"`,
      `${md('docs/COST')}, Caches and ${md('docs/COST')}, The hot path: why`,
      `${md('docs/API')} "Operations"; ${'README'}, Quick start; ${md('docs/OTHER')}, Anything; ${md('docs/COST')}, Hot path`,
    ].join('\n');
    expect(formatProblems(sectionProblems(notes, text, sections))).toBe('');
  });
});

describe('referenceProblems', () => {
  const tree = new TrackedTree([md('README'), md('docs/API'), md('docs/EXPORT'), 'docs/screenshots/a.png', 'lambdas/shared/errors.ts', 'lambdas/http/x.ts']);

  it('reports the sibling contract folder and a missing document, naming file and line', () => {
    const problems = referenceProblems(notes, `# notes\nsee ${sibling} and ${missing}\n`, tree);
    expect(problems.map((p) => [p.file, p.line, p.reference])).toEqual(
      expect.arrayContaining([
        [notes, 2, sibling],
        [notes, 2, missing],
      ]),
    );
    expect(formatProblems(problems)).toContain(`${notes}:2: ${missing} is a cited document that does not exist`);
  });

  it('reports the sibling contract folder from any depth, and its vectors', () => {
    const vectors = ['..', '..', '..', 'shared', 'vectors/'].join('/');
    const problems = referenceProblems('protocol/test/vectors.ts', `readFileSync(new URL('${vectors}', import.meta.url));\n`, tree);
    expect(problems.map((p) => p.problem)).toEqual(
      expect.arrayContaining([expect.stringContaining('contract folder'), expect.stringContaining('outside the repository root')]),
    );
  });

  it('reports relative imports, URLs and links that leave the root', () => {
    const up = ['..', '..', '..', 'elsewhere', 'x.js'].join('/');
    expect(referenceProblems('lambdas/http/x.ts', `import { a } from '${up}';\n`, tree)).toHaveLength(1);
    expect(referenceProblems('test/unit/y.ts', `new URL('${['..', '..', '..'].join('/')}', import.meta.url);\n`, tree)).toHaveLength(1);
    expect(referenceProblems(md('docs/X'), `[spec](${['..', '..', 'spec'].join('/')})\n`, tree)).toHaveLength(1);
  });

  it('reports absolute paths of a machine', () => {
    const work = `/${'work'}/main/README.md`;
    const home = `/${'home'}/alice/notes`;
    expect(referenceProblems('scripts/a.ts', `const a = '${work}';\nconst b = '${home}';\n`, tree).map((p) => p.line)).toEqual([1, 2]);
  });

  it('reports a markdown link to a file that does not exist', () => {
    expect(referenceProblems('README.md', '![x](docs/screenshots/b.png)\n', tree).map((p) => p.reference)).toEqual(['docs/screenshots/b.png']);
  });

  it('accepts what stays inside: lambdas/shared imports, existing documents, URLs, globs, sample homes', () => {
    const code = [
      "import { LedgerError } from '../shared/errors.js'; // docs/API.md §7, README.md",
      '// https://github.com/cline/cline/blob/main/.clinerules/hooks/README.md',
      "{ group: ['../*'] }",
      '{"cwd": "/home/dev/shop"}',
      "const name = 'notes/🚀 launch.md';",
      "new URL('../..', import.meta.url);",
    ].join('\n');
    expect(formatProblems(referenceProblems('lambdas/http/x.ts', code, tree))).toBe('');
    const markdown = `${md('docs/API')} §4.5, [export](${md('EXPORT')}), [api](${md('./API')}), ![a](screenshots/a.png), [top](${md('../README')}#x)\n`;
    expect(formatProblems(referenceProblems(md('docs/API'), markdown, tree))).toBe('');
  });
});

describe('commentPathProblems', () => {
  const tree = new TrackedTree(['lambdas/store/objects.ts', 'lambdas/http/define-handler.ts', 'local/stream-poller.ts', 'scripts/run.sh', 'console/src/app.tsx']);
  const gone = ['lambdas', 'schemas', 'agents.ts'].join('/');

  it('reports a file a line or block comment names that is not tracked, at the line it stands on', () => {
    const code = `// the rule of ${gone}\nconst a = 1; /* first line\n   then ${['stale', 'name.ts'].join('-')} */\n`;
    expect(commentPathProblems('lambdas/http/x.ts', sourceComments('lambdas/http/x.ts', code), tree).map((p) => [p.line, p.reference])).toEqual([
      [1, gone],
      [3, ['stale', 'name.ts'].join('-')],
    ]);
    expect(commentPathProblems('scripts/a.sh', sourceComments('scripts/a.sh', `echo 'x' # see ${gone}\n`), tree).map((p) => p.line)).toEqual([1]);
  });

  it('finds a file from the commenting folder, as the end of a tracked path, by its .js import name or by a bare name', () => {
    const code = [
      '// store/objects.ts, ../http/define-handler.ts, ./define-handler.js, stream-poller.ts and console/src/app.js',
      "const s = '// not a comment: nothing.ts';",
      '// build outputs and packages: client/dist/cli.cjs, index.mjs, ipaddr.js, https://example.com/a/b.ts',
    ].join('\n');
    expect(formatProblems(commentPathProblems('lambdas/http/x.ts', sourceComments('lambdas/http/x.ts', code), tree))).toBe('');
  });
});
