/**
 * RFC 8785 JSON Canonicalization Scheme (docs/PROTOCOL.md `JCS(v)`).
 *
 * Every hash and signature in the protocol is computed over these bytes, so this file is
 * deliberately strict: anything that JSON.stringify would silently drop or coerce
 * (undefined, NaN, Date, Map, toJSON, ...) is an error instead, because two parties that
 * coerced differently would compute different hashes for "the same" record.
 */
import { bytesAt } from './bytes.js';
import { CanonicalizationError } from '../errors/protocolerror.js';

// In a `u` regex a surrogate range only matches *unpaired* surrogates: a well-formed pair
// is one code point and does not match. RFC 8785 §3.2.2.2 requires rejecting lone ones
// (they have no UTF-8 encoding).
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

const utf8 = new TextEncoder();

/**
 * Deepest nesting JCS serializes (the value itself is level 1). The walk does not recurse,
 * so this is not a stack limit: it bounds the work one hostile value can ask for, far
 * above anything the protocol produces (records nest at most MAX_RECORD_DEPTH = 64 levels,
 * depth.ts) while still reading, say, a record stored before that limit existed.
 */
export const MAX_CANONICAL_DEPTH = 10_000;

/**
 * Serialize a JSON-compatible value to its RFC 8785 canonical form.
 *
 * - Numbers: ECMAScript `Number.prototype.toString` (RFC 8785 §3.2.2.3); `-0` becomes `0`.
 * - Strings: RFC 8785 §3.2.2.2 escaping (identical to ES2019+ `JSON.stringify` for
 *   well-formed strings: `\b \t \n \f \r \" \\`, other controls as `\u00xx`).
 * - Object members sorted by the UTF-16 code units of their names (RFC 8785 §3.2.3).
 *
 * Throws {@link CanonicalizationError} for NaN, ±Infinity, undefined (anywhere),
 * bigint, symbol, functions, lone surrogates in strings or keys, symbol-keyed members,
 * non-plain objects (anything whose prototype is not `Object.prototype`, `null` or, for
 * arrays, `Array.prototype`), cycles and nesting deeper than {@link MAX_CANONICAL_DEPTH}.
 *
 * @example
 * canonicalize({ b: 1, a: [true, -0, 1e21] }); // '{"a":[true,0,1e+21],"b":1}'
 */
export function canonicalize(value: unknown): string {
  const parts: string[] = [];
  serializeTo(value, (chunk) => parts.push(chunk));
  return parts.length === 1 ? (parts[0] as string) : parts.join('');
}

/**
 * UTF-8 bytes of {@link canonicalize}: the exact input of every hash and signature
 * (docs/PROTOCOL.md `JCS(v)` "as UTF-8 bytes").
 *
 * @example
 * canonicalBytes({ a: 'é' }); // Uint8Array of '{"a":"é"}' in UTF-8 (10 bytes)
 */
export function canonicalBytes(value: unknown): Uint8Array {
  return utf8.encode(canonicalize(value));
}

/**
 * One open array or object. The walk keeps its own stack instead of recursing, so a value
 * nested thousands of levels deep (hostile input, an old record) is canonicalized like any
 * other rather than overflowing the call stack: whether such a value is acceptable is the
 * nesting limit's question (depth.ts), not an accident of the stack size.
 */
type Frame = { node: object; items: readonly unknown[] | null; obj: Record<string, unknown> | null; keys: readonly string[]; next: number };

/**
 * Characters of output gathered before they go to `write`: big enough that writes are few,
 * small enough that serializing a large value never holds its whole canonical form (a
 * string built by appending keeps every appended piece until it is flattened).
 */
const CHUNK_CHARS = 1 << 16;

/**
 * The canonical form of `root`, handed to `write` in pieces of about {@link CHUNK_CHARS}
 * characters, in order. A string too long for the engine (an enormous value) is a protocol
 * error, not a crash.
 */
function serializeTo(root: unknown, write: (chunk: string) => void): void {
  try {
    serializeInto(root, write);
  } catch (err) {
    if (err instanceof RangeError) throw new CanonicalizationError('value is too large to canonicalize', { cause: err });
    throw err;
  }
}

function serializeInto(root: unknown, write: (chunk: string) => void): void {
  const ancestors = new Set<object>();
  const stack: Frame[] = [];
  let out = '';
  const flush = () => {
    if (out.length >= CHUNK_CHARS) {
      write(out);
      out = '';
    }
  };
  /** Writes a scalar, or opens a container (its members follow on the stack). */
  const begin = (value: unknown): void => {
    if (value !== null && typeof value === 'object') {
      if (stack.length >= MAX_CANONICAL_DEPTH) {
        throw new CanonicalizationError(`value is nested deeper than ${MAX_CANONICAL_DEPTH} levels`);
      }
      const frame = openContainer(value, ancestors);
      out += frame.items !== null ? '[' : '{';
      stack.push(frame);
    } else {
      out += serializeScalar(value);
      flush();
    }
  };
  begin(root);
  while (stack.length > 0) {
    const frame = stack[stack.length - 1] as Frame;
    const i = frame.next;
    if (frame.items !== null) {
      if (i < frame.items.length) {
        frame.next += 1;
        if (i > 0) out += ',';
        // Index access (not for..of) so that holes of sparse arrays read as undefined and fail.
        begin(frame.items[i]);
        continue;
      }
      out += ']';
    } else {
      if (i < frame.keys.length) {
        frame.next += 1;
        const key = frame.keys[i] as string;
        if (i > 0) out += ',';
        out += serializeString(key);
        out += ':';
        begin((frame.obj as Record<string, unknown>)[key]);
        continue;
      }
      out += '}';
    }
    // Only ancestors count as a cycle; the same object twice side by side is fine.
    ancestors.delete(frame.node);
    stack.pop();
  }
  if (out.length > 0) write(out);
}

/**
 * Where the canonical form of `value` ends if `bytes` hold exactly it from `offset` on, else
 * null; without building that form whole (the bytes of a large export bundle are compared
 * piece by piece as they are serialized). Throws as {@link canonicalize} on a value that has
 * no canonical form.
 *
 * @example
 * canonicalEndIn({ a: 1 }, new TextEncoder().encode('x{"a":1}'), 1); // 8
 */
export function canonicalEndIn(value: unknown, bytes: Uint8Array, offset: number): number | null {
  let at = offset;
  let same = true;
  serializeTo(value, (chunk) => {
    if (!same) return;
    const piece = utf8.encode(chunk);
    same = bytesAt(bytes, piece, at);
    at += piece.byteLength;
  });
  return same ? at : null;
}

function serializeScalar(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return serializeString(value);
    case 'number':
      if (!Number.isFinite(value)) {
        throw new CanonicalizationError(`number ${String(value)} has no JSON representation`);
      }
      // String(-0) === '0', as RFC 8785 requires.
      return String(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      return 'null';
    default:
      // undefined, bigint, symbol, function
      throw new CanonicalizationError(`${typeof value} has no JSON representation`);
  }
}

function serializeString(text: string): string {
  if (LONE_SURROGATE.test(text)) {
    throw new CanonicalizationError('string contains a lone surrogate');
  }
  return JSON.stringify(text);
}

function openContainer(value: object, ancestors: Set<object>): Frame {
  if (ancestors.has(value)) {
    throw new CanonicalizationError('value contains a cycle');
  }
  const proto: unknown = Object.getPrototypeOf(value);
  let frame: Frame;
  if (Array.isArray(value)) {
    if (proto !== Array.prototype) {
      throw new CanonicalizationError('array subclasses are not plain JSON');
    }
    frame = { node: value, items: value as unknown[], obj: null, keys: [], next: 0 };
  } else if (proto === Object.prototype || proto === null) {
    const obj = value as Record<string, unknown>;
    if (Object.getOwnPropertySymbols(obj).some((s) => Object.prototype.propertyIsEnumerable.call(obj, s))) {
      throw new CanonicalizationError('symbol-keyed members are not JSON');
    }
    // Default sort compares UTF-16 code units, exactly RFC 8785 §3.2.3.
    frame = { node: value, items: null, obj, keys: Object.keys(obj).sort(), next: 0 };
  } else {
    const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
    throw new CanonicalizationError(
      `non-plain object (${typeof name === 'string' ? name : 'unknown prototype'}) is not JSON`,
    );
  }
  ancestors.add(value);
  return frame;
}
