/**
 * Text-preserving edits of JSON settings files with Microsoft's jsonc-parser (modify +
 * applyEdits): the hook entry is inserted where it belongs and every other byte of the
 * user's file (order, indentation, comments) stays as it was.
 */
import { applyEdits, findNodeAtLocation, getNodeValue, modify, parseTree, printParseErrorCode, type FormattingOptions, type JSONPath, type Node, type ParseError } from 'jsonc-parser';
import { ConfigError } from './config-error.js';

/** Parses a settings file; throws ConfigError naming the first syntax error. */
export function parseJsonFile(path: string, text: string): Node | undefined {
  if (text.trim() === '') return undefined;
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, { allowTrailingComma: false, disallowComments: false });
  if (errors.length > 0) {
    const first = errors[0]!;
    const { line, column } = position(text, first.offset);
    throw new ConfigError(`${path} is not valid JSON (${printParseErrorCode(first.error)} at line ${line}, column ${column}); fix it first: nothing was changed`);
  }
  if (tree?.type !== 'object') throw new ConfigError(`${path} does not hold a JSON object; nothing was changed`);
  return tree;
}

function position(text: string, offset: number) {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: before.at(-1)!.length + 1 };
}

/** The file's own indentation and line ending, so inserted lines look like their neighbours. */
function formattingOf(text: string): FormattingOptions {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const indent = /\n([ \t]+)\S/.exec(text)?.[1];
  if (indent?.startsWith('\t')) return { insertSpaces: false, tabSize: 1, eol };
  return { insertSpaces: true, tabSize: indent ? indent.length : 2, eol };
}

/** The JSON value at `path` of `text`, or undefined. */
function valueAt(tree: Node | undefined, path: JSONPath): Node | undefined {
  return tree ? findNodeAtLocation(tree, path) : undefined;
}

/**
 * Appends `entry` to the array at `arrayPath`, creating the array and its parent objects
 * when absent. `text` may be empty (a file that does not exist yet). The insertion is one
 * contiguous run of new text laid out like its surroundings (jsonc-parser's own formatter
 * would re-indent the neighbouring members, which the user wrote).
 */
export function appendToArray(path: string, text: string, arrayPath: JSONPath, entry: unknown): string {
  const source = text.trim() === '' ? '{}' : text;
  const tree = parseJsonFile(path, source)!;
  const format = formattingOf(text);
  const unit = format.insertSpaces ? ' '.repeat(format.tabSize ?? 2) : '\t';
  const eol = format.eol ?? '\n';

  // The deepest node of the path that exists, and what must be created below it.
  let container: Node = tree;
  let depth = 0;
  for (; depth < arrayPath.length; depth++) {
    const child = findNodeAtLocation(tree, arrayPath.slice(0, depth + 1));
    if (child === undefined) break;
    container = child;
  }
  if (depth === arrayPath.length && container.type !== 'array') throw new ConfigError(`${path}: ${arrayPath.join('.')} is not a list; nothing was changed`);
  if (depth < arrayPath.length && container.type !== 'object') throw new ConfigError(`${path}: ${arrayPath.slice(0, depth).join('.')} is not an object; nothing was changed`);
  let value: unknown = [entry];
  for (let i = arrayPath.length - 1; i > depth; i--) value = { [arrayPath[i] as string]: value };
  const item = depth === arrayPath.length ? JSON.stringify(entry, null, unit) : `${JSON.stringify(arrayPath[depth])}: ${JSON.stringify(value, null, unit)}`;

  const children = container.type === 'object' ? (container.children ?? []) : (container.children ?? []);
  const open = container.offset;
  const close = container.offset + container.length - 1;
  const multiLine = text.trim() === '' || source.slice(open, close + 1).includes('\n') || children.length === 0;
  const containerIndent = indentOfLine(source, open);
  let insertAt: number;
  let insertion: string;
  if (!multiLine) {
    // One-line container: one-line insertion.
    const compact = depth === arrayPath.length ? JSON.stringify(entry) : `${JSON.stringify(arrayPath[depth])}: ${JSON.stringify(value)}`;
    const last = children.at(-1)!;
    insertAt = last.offset + last.length;
    insertion = `, ${compact}`;
  } else {
    const childIndent = children.length > 0 && startsLine(source, children[0]!.offset) ? indentOfLine(source, children[0]!.offset) : containerIndent + unit;
    const laidOut = item.replace(/\n/g, `${eol}${childIndent}`);
    if (children.length > 0) {
      const last = children.at(-1)!;
      insertAt = last.offset + last.length;
      insertion = `,${eol}${childIndent}${laidOut}`;
    } else {
      insertAt = open + 1;
      const inner = source.slice(open + 1, close);
      insertion = `${eol}${childIndent}${laidOut}${inner.includes('\n') ? '' : `${eol}${containerIndent}`}`;
    }
  }
  let result = source.slice(0, insertAt) + insertion + source.slice(insertAt);
  if (text.trim() === '') result = `${result}${eol}`;
  parseJsonFile(path, result); // never write what does not parse
  return result;
}

function indentOfLine(text: string, offset: number): string {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart, offset))![0];
}

function startsLine(text: string, offset: number): boolean {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  return text.slice(lineStart, offset).trim() === '';
}

/** Removes the array items at `arrayPath` that `isOurs` selects (from the last, so offsets hold). */
export function removeFromArray(path: string, text: string, arrayPath: JSONPath, isOurs: (item: unknown) => boolean): string {
  const tree = parseJsonFile(path, text);
  const array = valueAt(tree, arrayPath);
  if (!array || array.type !== 'array') return text;
  let result = text;
  const items = array.children ?? [];
  for (let index = items.length - 1; index >= 0; index--) {
    if (isOurs(getNodeValue(items[index]!))) {
      result = applyEdits(result, modify(result, [...arrayPath, index], undefined, {}));
    }
  }
  return result;
}

/** The plain value of the array at `arrayPath` (empty when absent). */
export function arrayItems(tree: Node | undefined, arrayPath: JSONPath): unknown[] {
  const array = valueAt(tree, arrayPath);
  return array?.type === 'array' ? (array.children ?? []).map(getNodeValue) : [];
}
