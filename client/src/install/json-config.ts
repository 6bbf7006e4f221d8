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
export function formattingOf(text: string): FormattingOptions {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const indent = /\n([ \t]+)\S/.exec(text)?.[1];
  if (indent?.startsWith('\t')) return { insertSpaces: false, tabSize: 1, eol };
  return { insertSpaces: true, tabSize: indent ? indent.length : 2, eol };
}

/** The JSON value at `path` of `text`, or undefined. */
export function valueAt(tree: Node | undefined, path: JSONPath): Node | undefined {
  return tree ? findNodeAtLocation(tree, path) : undefined;
}

/**
 * Appends `entry` to the array at `arrayPath`, creating the array and its parents when
 * absent. `text` may be empty (a file that does not exist yet).
 */
export function appendToArray(path: string, text: string, arrayPath: JSONPath, entry: unknown): string {
  const source = text.trim() === '' ? '{}' : text;
  const tree = parseJsonFile(path, source);
  const array = valueAt(tree, arrayPath);
  if (array !== undefined && array.type !== 'array') {
    throw new ConfigError(`${path}: ${arrayPath.join('.')} is not a list; nothing was changed`);
  }
  const formattingOptions = formattingOf(text.trim() === '' ? '' : text);
  const edits =
    array === undefined
      ? modify(source, arrayPath, [entry], { formattingOptions })
      : modify(source, [...arrayPath, array.children?.length ?? 0], entry, { formattingOptions, isArrayInsertion: true });
  let result = applyEdits(source, edits);
  if (text.trim() === '') result = `${result}${formattingOptions.eol}`;
  parseJsonFile(path, result); // never write what does not parse
  return result;
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
      result = applyEdits(result, modify(result, [...arrayPath, index], undefined, { formattingOptions: formattingOf(text) }));
    }
  }
  return result;
}

/** The plain value of the array at `arrayPath` (empty when absent). */
export function arrayItems(tree: Node | undefined, arrayPath: JSONPath): unknown[] {
  const array = valueAt(tree, arrayPath);
  return array?.type === 'array' ? (array.children ?? []).map(getNodeValue) : [];
}
