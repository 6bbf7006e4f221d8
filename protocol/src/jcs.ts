/**
 * RFC 8785 JSON Canonicalization Scheme (docs/PROTOCOL.md `JCS(v)`).
 *
 * Every hash and signature in the protocol is computed over these bytes, so this file is
 * deliberately strict: anything that JSON.stringify would silently drop or coerce
 * (undefined, NaN, Date, Map, toJSON, ...) is an error instead, because two parties that
 * coerced differently would compute different hashes for "the same" record.
 */
import { CanonicalizationError } from './errors.js';

// In a `u` regex a surrogate range only matches *unpaired* surrogates: a well-formed pair
// is one code point and does not match. RFC 8785 §3.2.2.2 requires rejecting lone ones
// (they have no UTF-8 encoding).
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

const utf8 = new TextEncoder();

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
 * arrays, `Array.prototype`) and cycles.
 *
 * @example
 * canonicalize({ b: 1, a: [true, -0, 1e21] }); // '{"a":[true,0,1e+21],"b":1}'
 */
export function canonicalize(value: unknown): string {
  try {
    return serialize(value, new Set<object>());
  } catch (err) {
    // Hostile nesting depth must surface as a protocol error, not a crash of the caller.
    if (err instanceof RangeError) {
      throw new CanonicalizationError('value is nested too deeply to canonicalize', { cause: err });
    }
    throw err;
  }
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

function serialize(value: unknown, ancestors: Set<object>): string {
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
      if (value === null) return 'null';
      return serializeObject(value, ancestors);
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

function serializeObject(value: object, ancestors: Set<object>): string {
  if (ancestors.has(value)) {
    throw new CanonicalizationError('value contains a cycle');
  }
  const proto: unknown = Object.getPrototypeOf(value);
  ancestors.add(value);
  let out: string;
  if (Array.isArray(value)) {
    if (proto !== Array.prototype) {
      throw new CanonicalizationError('array subclasses are not plain JSON');
    }
    out = serializeArray(value, ancestors);
  } else if (proto === Object.prototype || proto === null) {
    out = serializeMembers(value as Record<string, unknown>, ancestors);
  } else {
    const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
    throw new CanonicalizationError(
      `non-plain object (${typeof name === 'string' ? name : 'unknown prototype'}) is not JSON`,
    );
  }
  // Only ancestors count as a cycle; the same object twice side by side is fine.
  ancestors.delete(value);
  return out;
}

function serializeArray(items: unknown[], ancestors: Set<object>): string {
  let out = '[';
  // Index loop (not for..of) so that holes of sparse arrays read as undefined and fail.
  for (let i = 0; i < items.length; i++) {
    if (i > 0) out += ',';
    out += serialize(items[i], ancestors);
  }
  return out + ']';
}

function serializeMembers(obj: Record<string, unknown>, ancestors: Set<object>): string {
  if (Object.getOwnPropertySymbols(obj).some((s) => Object.prototype.propertyIsEnumerable.call(obj, s))) {
    throw new CanonicalizationError('symbol-keyed members are not JSON');
  }
  // Default sort compares UTF-16 code units, exactly RFC 8785 §3.2.3.
  const keys = Object.keys(obj).sort();
  let out = '{';
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    if (i > 0) out += ',';
    out += serializeString(key);
    out += ':';
    out += serialize(obj[key], ancestors);
  }
  return out + '}';
}
