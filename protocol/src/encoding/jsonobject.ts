/**
 * The JSON type test that every reader of untrusted JSON here starts from: a JSON object, not
 * an array and not null. The export bundle's shape checks (export/shape.ts) and the agent key
 * pins reader (keys/pins.ts) both use it, so it sits below both.
 */

/**
 * True for a JSON object (not an array, not null).
 *
 * @example
 * isPlainObject({}); // true
 * isPlainObject([]); // false
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
