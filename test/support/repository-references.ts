/**
 * Finds references in a tracked file that a fresh clone cannot follow: paths that leave the
 * repository root, cited `.md` documents that do not exist in it, and source files named in
 * code comments that do not exist in it. The repository must
 * stand on its own (README; docs/ARCHITECTURE.md, Conventions: citations name a file of this
 * repository or an RFC).
 *
 * Pure: the caller supplies each file's text and the set of tracked paths, so the rules can be
 * run on fake files too (test/system/repository-references.test.ts).
 */
import { posix } from 'node:path';
import type { SourceComment } from './source-comments.js';

export interface ReferenceProblem {
  file: string;
  /** 1-based. */
  line: number;
  reference: string;
  problem: string;
}

/**
 * What the tree holds: tracked files and the folders above them. A folder counts, so a link
 * to `docs/screenshots/` or an import of a package folder resolves.
 */
export class TrackedTree {
  private readonly files: ReadonlySet<string>;
  private readonly folders = new Set<string>();

  constructor(paths: readonly string[]) {
    this.files = new Set(paths);
    for (const path of paths) {
      for (let dir = posix.dirname(path); dir !== '.' && !this.folders.has(dir); dir = posix.dirname(dir)) this.folders.add(dir);
    }
  }

  has(path: string): boolean {
    const clean = path.replace(/\/+$/, '');
    return clean === '' || clean === '.' || this.files.has(clean) || this.folders.has(clean);
  }

  /** Whether a tracked file's path is `path` or ends with `/path` (`store/objects.ts` for lambdas/store/objects.ts). */
  hasTail(path: string): boolean {
    if (!this.tails) {
      this.tails = new Set();
      for (const file of this.files) file.split('/').forEach((_, i, parts) => this.tails!.add(parts.slice(i).join('/')));
    }
    return this.tails.has(path);
  }

  private tails: Set<string> | undefined;
}

// The contract folder that used to sit beside the repository ("shared", one level above the
// root): the folder on its own, or followed by one of its entries (the upper-case contract
// documents, vectors/, hooks/). lambdas/shared/ is inside the repository and holds none of
// these, so its imports (of errors.js, roles.js, ...) do not match.
const SIBLING_CONTRACT = /\.\.\/shared(?:\/(?:vectors|hooks)(?![\w-])|\/[A-Z]|(?![\w/.-]))[^\s'"`()<>[\]{},;|]*/g;

// Absolute paths of a machine: the workspace folder and home directories. `/home/dev/` is the
// fictional user of the recorded hook events and conformance vectors (a tool's cwd on the
// agent's machine, data rather than a reference), so it is the one home allowed. A `\` or a
// word character before the slash means a regex source or a URL's path, not a path.
const MACHINE_PATH = /(?<![\w.:\\/-])\/(?:work\/|home\/(?!dev\/)[\w.-]+|Users\/[\w.-]+)/g;

// A relative path: `./` or `../` steps, then the rest up to a delimiter.
const RELATIVE_PATH = /(?<![\w./~$@%\\-])((?:\.\.?\/)+)([^\s'"`()<>[\]{},;*|\\]*)/g;

// A cited markdown document: optional relative steps, folders, a name ending in `.md`.
const MD_CITATION = /(?<![\w./~$@%\\-])((?:\.{1,2}\/)*(?:[\w@.-]+\/)*[\w.-]*\w\.md)(?!\w)/g;

// A markdown link's target: `[text](target)`.
const MARKDOWN_LINK = /\]\(([^)\s]+)\)/g;

// URLs are other sites' paths (a GitHub blob's README.md, an RFC's page), never ours.
const URL_TEXT = /\b[a-z][a-z+.-]*:\/\/[^\s'"`)<>\]]*/gi;

function resolveFrom(file: string, relative: string): string {
  return posix.normalize(posix.join(posix.dirname(file), relative));
}

const leavesRoot = (resolved: string) => resolved === '..' || resolved.startsWith('../');

/**
 * Where a cited markdown document may be: a path starting with `./` or `../` from the citing
 * file's folder; a path with folders (docs/…) from the repository root, else from the citing
 * folder, as a markdown link in a sub-folder would; a bare name beside the citing file, else
 * at the root.
 */
function mdCandidates(file: string, cited: string): string[] {
  if (cited.startsWith('./') || cited.startsWith('../')) return [resolveFrom(file, cited)];
  if (cited.includes('/')) return [posix.normalize(cited), resolveFrom(file, cited)];
  return [resolveFrom(file, cited), cited];
}

/** Every problem in one file's text, in line order. */
export function referenceProblems(file: string, text: string, tree: TrackedTree): ReferenceProblem[] {
  const problems: ReferenceProblem[] = [];
  const isMarkdown = file.endsWith('.md');
  text.split('\n').forEach((fullLine, index) => {
    const line = index + 1;
    const report = (reference: string, problem: string) => problems.push({ file, line, reference, problem });

    for (const match of fullLine.matchAll(SIBLING_CONTRACT)) report(match[0], 'names the contract folder beside the repository; cite docs/ instead');
    for (const match of fullLine.matchAll(MACHINE_PATH)) report(match[0], 'is an absolute path of a machine, not of the repository');

    const withoutUrls = fullLine.replace(URL_TEXT, ' ');
    for (const match of withoutUrls.matchAll(RELATIVE_PATH)) {
      const [, steps = '', rest = ''] = match;
      // An eslint no-restricted-imports glob ('../*') is relative to the importing file, not this one.
      if (withoutUrls[(match.index ?? 0) + match[0].length] === '*') continue;
      // A sentence's full stop or colon after a name is not part of the path; `..` is.
      const reference = `${steps}${rest}`.replace(/(?<=\w)[.:]+$/, '');
      const resolved = resolveFrom(file, reference);
      if (leavesRoot(resolved)) report(reference, `resolves to ${resolved}, outside the repository root`);
    }

    for (const match of withoutUrls.matchAll(MD_CITATION)) {
      const cited = match[1] ?? '';
      // Bare names cite this repository's documents, which are named in capitals (README.md,
      // docs/API.md); a lower-case bare name is data (a file name in a test), not a citation.
      if (!cited.includes('/') && !/^[A-Z]/.test(cited)) continue;
      if (leavesRoot(resolveFrom(file, cited)) && (cited.startsWith('./') || cited.startsWith('../'))) continue; // reported above
      if (!mdCandidates(file, cited).some((candidate) => tree.has(candidate))) report(cited, 'is a cited document that does not exist in the repository');
    }

    if (isMarkdown) {
      for (const match of withoutUrls.matchAll(MARKDOWN_LINK)) {
        const target = (match[1] ?? '').split('#')[0] ?? '';
        if (target === '' || /^[a-z][a-z+.-]*:/i.test(target)) continue; // an anchor, mailto:
        const resolved = resolveFrom(file, decodeURIComponent(target));
        if (leavesRoot(resolved)) continue; // reported above
        if (!tree.has(resolved)) report(target, 'is a link target that does not exist in the repository');
      }
    }
  });
  // A link to a missing .md matches two rules; report it once.
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.line}\0${p.reference}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

// A source file a comment names: folders or not, then a name with the extension of a source
// file of this repository. Not after a letter, a dot, a slash or an `@` (a URL's path, a
// package's file, a longer name), nor followed by a letter or a slash.
const SOURCE_PATH = /(?<![\w./~$@%\\:-])((?:\.\.?\/)*(?:[\w@.-]+\/)*\w[\w.-]*\.(?:ts|tsx|js|mjs|cjs|py|sh))(?![\w/-])/g;

// Build outputs (client/dist/cli.cjs, an asset's index.mjs) are named by what makes them, and
// are not tracked; a bare `.js` or `.mjs` name is as often a package (ipaddr.js) or a file a
// script writes. Neither is a citation of the tree.
const BUILD_OUTPUT = /(?:^|\/)dist\//;
const BARE_SOURCE = /^[^/]+\.(?:ts|tsx|py|sh)$/;

/** The same file under the names an import gives it: `roles.js` for roles.ts, `app.js` for app.tsx (the ES module convention). */
const sourceNames = (path: string) => (path.endsWith('.js') ? [path, path.replace(/\.js$/, '.ts'), path.replace(/\.js$/, '.tsx')] : [path]);

/**
 * Whether a path a comment names is a tracked file. One that starts with `./` or `../`
 * resolves from the commenting file's folder; `store/objects.ts` from there, or as the end of
 * a tracked path (comments name the service's files from lambdas/, the protocol's from
 * protocol/src/, ...); a bare name such as `roles.ts`, any tracked file of that name.
 */
function namesTrackedFile(file: string, cited: string, tree: TrackedTree): boolean {
  return sourceNames(cited).some((name) => {
    if (name.startsWith('./') || name.startsWith('../')) return tree.has(resolveFrom(file, name));
    return tree.has(resolveFrom(file, name)) || tree.hasTail(name);
  });
}

/** Paths named in a source file's comments (source-comments.ts) that no tracked file answers to. */
export function commentPathProblems(file: string, comments: readonly SourceComment[], tree: TrackedTree): ReferenceProblem[] {
  const problems: ReferenceProblem[] = [];
  for (const comment of comments) {
    comment.text.split('\n').forEach((commentLine, offset) => {
      for (const match of commentLine.replace(URL_TEXT, ' ').matchAll(SOURCE_PATH)) {
        const cited = match[1] ?? '';
        if (BUILD_OUTPUT.test(cited) || (!cited.includes('/') && !BARE_SOURCE.test(cited))) continue;
        if (leavesRoot(resolveFrom(file, cited))) continue; // referenceProblems reports it
        if (!namesTrackedFile(file, cited, tree)) {
          problems.push({ file, line: comment.line + offset, reference: cited, problem: 'is a file named in a comment that does not exist in the repository' });
        }
      }
    });
  }
  return problems;
}

/** `file:line: reference problem`, one per line, for a failure message. */
export function formatProblems(problems: readonly ReferenceProblem[]): string {
  return problems.map((p) => `${p.file}:${p.line}: ${p.reference} ${p.problem}`).join('\n');
}

/** Lower case, without backticks and quotes, spaces collapsed: how a section's name is compared. */
const sectionKey = (name: string) => name.replace(/[`"“”]/g, '').replace(/\s+/g, ' ').trim().toLowerCase();

// A heading (`## 4.5 Operations` counts as "Operations" too), or the bold lead-in of a
// paragraph, list item, numbered item or table row (`**Caches per process**`, `- **Tokens.**`).
const HEADING = /^#{1,4} (.+)$/;
const BOLD_LEAD = /^(?:- |\| |\d+\. )?\*\*([^*]+)\*\*/;

/**
 * The sections of the repository's markdown documents, by path. A citation names one by the
 * start of its heading ("Rehearsal" for "Rehearsal: the deployed shape on your machine") or
 * by a heading it begins with ("Conventions: citations name a file").
 */
export class DocumentSections {
  private readonly byDocument = new Map<string, string[]>();

  constructor(documents: Readonly<Record<string, string>>) {
    for (const [path, text] of Object.entries(documents)) {
      const names: string[] = [];
      for (const line of text.split('\n')) {
        const heading = HEADING.exec(line)?.[1];
        // "## 4.5 Operations" is also "Operations", and "## The hot path" also "hot path".
        if (heading !== undefined) names.push(...[heading, heading.replace(/^\d+(?:\.\d+)*\.? /, '')].flatMap((h) => [sectionKey(h), sectionKey(h).replace(/^the /, '')]));
        const bold = BOLD_LEAD.exec(line)?.[1];
        if (bold !== undefined) names.push(sectionKey(bold.replace(/[.:]$/, '')));
      }
      this.byDocument.set(path, names);
    }
  }

  /** Whether `document` has a section `cited` names; undefined for a document it does not know. */
  has(document: string, cited: string): boolean | undefined {
    const names = this.byDocument.get(document);
    if (names === undefined) return undefined;
    const key = sectionKey(cited);
    return names.some((name) => name.startsWith(key) || key.startsWith(`${name} `) || key.startsWith(`${name}:`));
  }
}

// A document's path, a comma or not, then the section: in double quotes, or unquoted from a
// capital over words up to punctuation or the next citation (`docs/...`). The README's
// sections may be cited without the extension. (Examples: the test of this file.)
const SECTION_CITATION = /(?<![\w/.-])((?:docs\/)?[A-Z][A-Z_]*\.md|README),? (?:"([^"]+)"|([A-Z][A-Za-z`'-]*(?: (?!docs\b)[A-Za-z`'-]+)*))/g;

/** Citations of a section that the cited document does not have, in line order. */
export function sectionProblems(file: string, text: string, sections: DocumentSections): ReferenceProblem[] {
  const problems: ReferenceProblem[] = [];
  text.split('\n').forEach((fullLine, index) => {
    for (const match of fullLine.replace(URL_TEXT, ' ').matchAll(SECTION_CITATION)) {
      const document = match[1] === 'README' ? 'README.md' : (match[1] as string);
      const cited = (match[2] ?? match[3]) as string;
      // Unquoted, where the name ends is a guess: any leading run of its words may be the name.
      const words = cited.split(' ');
      const candidates = match[2] !== undefined ? [cited] : words.map((_, n) => words.slice(0, n + 1).join(' '));
      if (candidates.every((candidate) => sections.has(document, candidate) === false)) {
        problems.push({ file, line: index + 1, reference: `${document}, ${cited}`, problem: `is a cited section that ${document} does not have (its headings and bold lead-ins)` });
      }
    }
  });
  return problems;
}
