/**
 * Repeated member names in a JSON text (I-JSON, RFC 7493 §2.3: "Objects in I-JSON messages
 * MUST NOT have members with duplicate names"). JSON.parse keeps the last of two equal
 * names silently while other parsers keep the first, so two readers of the same bytes could
 * see two different records (docs/PROTOCOL.md, Operation record); such a body is refused.
 *
 * The scan is jsonc-parser's `visit` (Microsoft's, the parser of VS Code): it reports each
 * member name unescaped (`"a\u0062"` and `"ab"` are the same name) with its path, which
 * JSON.parse cannot. The text has already passed JSON.parse, so the grammar is JSON's, and
 * the nesting limit (json-body.ts), since jsonc-parser recurses once per level: a body
 * thousands of levels deep would overflow the stack here.
 */
import { visit, type JSONPath } from 'jsonc-parser';

/** The first repeated member name, as `path.name`, or undefined when every object's names are distinct. */
export function repeatedMemberName(text: string): string | undefined {
  const open: Set<string>[] = [];
  let repeated: string | undefined;
  visit(text, {
    onObjectBegin: () => {
      open.push(new Set());
    },
    onObjectEnd: () => {
      open.pop();
    },
    onObjectProperty: (name: string, _offset: number, _length: number, _line: number, _column: number, path: () => JSONPath) => {
      const names = open.at(-1);
      if (names === undefined || repeated !== undefined) return;
      if (names.has(name)) repeated = [...path(), name].join('.');
      names.add(name);
    },
  });
  return repeated;
}
