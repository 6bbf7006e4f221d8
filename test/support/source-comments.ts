/**
 * The comments of a source file, each with the line it starts on: line and block comments of
 * TypeScript and JavaScript, read by the TypeScript parser (so a `//` inside a string, a
 * template or a regular expression is no comment), and `#` of Python and shell, from a `#`
 * that starts the line or follows a space to the line's end. Pure, like the rules that read
 * them (repository-references.ts).
 */
import ts from 'typescript';

export interface SourceComment {
  /** 1-based. */
  line: number;
  text: string;
}

const SCRIPT_KINDS: Record<string, ts.ScriptKind> = { ts: ts.ScriptKind.TS, tsx: ts.ScriptKind.TSX, js: ts.ScriptKind.JS, mjs: ts.ScriptKind.JS, cjs: ts.ScriptKind.JS };
const HASH_COMMENTED = new Set(['py', 'sh']);

const extensionOf = (file: string) => /\.([a-z]+)$/.exec(file)?.[1] ?? '';

/** Whether {@link sourceComments} reads comments of this file. */
export const hasReadableComments = (file: string) => Object.hasOwn(SCRIPT_KINDS, extensionOf(file)) || HASH_COMMENTED.has(extensionOf(file));

/**
 * Every comment that stands before or after a node of the syntax tree: before or after a
 * statement, a member, an argument or an expression, which is where comments are written
 * (one alone inside empty braces is not seen).
 */
function scriptComments(file: string, text: string, kind: ts.ScriptKind): SourceComment[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, kind);
  const ranges = new Map<number, ts.CommentRange>();
  const collect = (found: ts.CommentRange[] | undefined) => {
    for (const range of found ?? []) ranges.set(range.pos, range);
  };
  const visit = (node: ts.Node) => {
    collect(ts.getLeadingCommentRanges(text, node.getFullStart()));
    collect(ts.getTrailingCommentRanges(text, node.getEnd()));
    ts.forEachChild(node, visit);
  };
  visit(source);
  collect(ts.getLeadingCommentRanges(text, source.endOfFileToken.getFullStart()));
  return [...ranges.values()]
    .sort((a, b) => a.pos - b.pos)
    .map((range) => ({ line: source.getLineAndCharacterOfPosition(range.pos).line + 1, text: text.slice(range.pos, range.end) }));
}

function hashComments(text: string): SourceComment[] {
  const comments: SourceComment[] = [];
  text.split('\n').forEach((line, index) => {
    const start = /(?:^|\s)#/.exec(line);
    if (start) comments.push({ line: index + 1, text: line.slice(start.index + start[0].indexOf('#')) });
  });
  return comments;
}

export function sourceComments(file: string, text: string): SourceComment[] {
  const extension = extensionOf(file);
  if (Object.hasOwn(SCRIPT_KINDS, extension)) return scriptComments(file, text, SCRIPT_KINDS[extension]!);
  return HASH_COMMENTED.has(extension) ? hashComments(text) : [];
}
