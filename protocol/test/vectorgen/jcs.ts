/**
 * jcs.json (inputs and their RFC 8785 canonical text), jcs-numbers.json (RFC 8785
 * Appendix B) and jcs-invalid.json (texts a verifier that requires canonical JSON refuses).
 */
import { canonicalize } from '../../src/index.js';
import { agree, hexBytes } from './agree.js';
import { RFC8785_NOT_FINITE, RFC8785_NUMBERS, RFC8785_SAMPLE, RFC8785_SORTING } from './rfc.js';

export type JcsVector = { name: string; input: unknown; canonical: string };
export type JcsNumberVector = { bits: string; canonical?: string; error?: 'not_finite' };
export type JcsInvalidVector = { name: string; text: string; error: JcsRejection; why: string };
export type JcsRejection = 'not_canonical' | 'repeated_member' | 'number_not_i_json' | 'lone_surrogate' | 'not_json';

const inputs: { name: string; input: unknown }[] = [
  // Integer-like names ("1") come first in a JS object whatever the literal's order; the
  // canonical text sorts them as strings.
  { name: 'key order by UTF-16 code units', input: { b: 1, a: 2, '\u20ac': 3, '\r': 4, '\u{1f600}': 5, '\ufb33': 6, 1: 7 } },
  {
    name: 'numbers',
    // eslint-disable-next-line no-loss-of-precision -- the literals are the cases: rounding is the point
    input: [0, -0, 1, -1, 1.5, 1e21, 1e-7, 123456789012345678901, 0.000001, 5e-324, 9007199254740991, 333333333.33333329],
  },
  { name: 'string escapes', input: { s: 'tab\tnl\ncr\rq"bs\\ctl\u0001\u001f del\u007f \u2028 \u00e9 \u{1f600}' } },
  { name: 'nested', input: { z: { y: [true, false, null, { b: [], a: {} }] }, a: 'x' } },
  { name: 'literals', input: [null, true, false, '', {}, []] },
];

export function jcsVectors(): JcsVector[] {
  const out: JcsVector[] = inputs.map(({ name, input }) => ({ name, input, canonical: canonicalize(input) }));
  for (const [name, rfc] of [
    ['RFC 8785 §3.2.3 sample object', RFC8785_SAMPLE],
    ['RFC 8785 §3.2.3 sorting example', RFC8785_SORTING],
  ] as const) {
    const input: unknown = JSON.parse(rfc.text);
    const canonical = canonicalize(input);
    agree(name, canonical, rfc.canonical);
    out.push({ name, input, canonical });
  }
  return out;
}

function double(bits: string): number {
  return new DataView(hexBytes(bits).buffer).getFloat64(0, false);
}

export function jcsNumberVectors(): JcsNumberVector[] {
  const out: JcsNumberVector[] = RFC8785_NUMBERS.map(([bits, expected]) => {
    const canonical = canonicalize(double(bits));
    agree(`RFC 8785 Appendix B ${bits}`, canonical, expected);
    return { bits, canonical };
  });
  for (const bits of RFC8785_NOT_FINITE) {
    let threw = false;
    try {
      canonicalize(double(bits));
    } catch {
      threw = true;
    }
    agree(`RFC 8785 Appendix B ${bits} has no serialization`, threw, true);
    out.push({ bits, error: 'not_finite' });
  }
  return out;
}

/** The rule every negative case breaks: the text must be exactly JCS(parse(text)). */
export function acceptsCanonicalText(text: string): boolean {
  try {
    return canonicalize(JSON.parse(text)) === text;
  } catch {
    return false;
  }
}

const invalid: JcsInvalidVector[] = [
  { name: 're-ordered members', text: '{"b":1,"a":2}', error: 'not_canonical', why: 'members must be sorted by UTF-16 code units' },
  { name: 'integer-like names sorted as numbers', text: '{"9":1,"10":2}', error: 'not_canonical', why: 'names sort as strings: "10" before "9"' },
  { name: 'whitespace between tokens', text: '{"a": 1}', error: 'not_canonical', why: 'canonical JSON has no insignificant whitespace' },
  { name: 'trailing newline', text: '{"a":1}\n', error: 'not_canonical', why: 'nothing may follow the value' },
  { name: 'number with a fraction of zero', text: '{"a":1.0}', error: 'not_canonical', why: 'numbers are serialized as ECMAScript Number.prototype.toString: 1' },
  { name: 'number with an exponent', text: '[1E2]', error: 'not_canonical', why: 'the canonical form of 1E2 is 100' },
  { name: 'negative zero', text: '[-0]', error: 'not_canonical', why: 'minus zero serializes as 0' },
  { name: 'escaped printable character', text: '["\\u0041"]', error: 'not_canonical', why: 'only controls, " and \\ are escaped' },
  { name: 'upper-case hex escape', text: '["\\u001F"]', error: 'not_canonical', why: 'control escapes use lower-case hex: \\u001f' },
  { name: 'escaped solidus', text: '["\\/"]', error: 'not_canonical', why: '/ is not escaped' },
  { name: 'repeated member', text: '{"a":1,"a":1}', error: 'repeated_member', why: 'I-JSON (RFC 7493 §2.3) forbids two members with one name' },
  { name: 'repeated member spelled two ways', text: '{"a":1,"\\u0061":2}', error: 'repeated_member', why: 'the names are equal once unescaped' },
  { name: 'integer beyond 2^53', text: '[9007199254740993]', error: 'number_not_i_json', why: 'not exactly representable as an IEEE 754 double (RFC 7493 §2.2)' },
  { name: 'number overflowing a double', text: '[1e400]', error: 'number_not_i_json', why: 'outside the range of an IEEE 754 double (RFC 7493 §2.2)' },
  { name: 'lone high surrogate', text: '["\\ud800"]', error: 'lone_surrogate', why: 'strings must be well-formed Unicode (RFC 7493 §2.1)' },
  { name: 'lone low surrogate in a name', text: '{"\\udc00":1}', error: 'lone_surrogate', why: 'names must be well-formed Unicode (RFC 7493 §2.1)' },
  { name: 'trailing comma', text: '[1,]', error: 'not_json', why: 'not JSON (RFC 8259)' },
  { name: 'NaN literal', text: '[NaN]', error: 'not_json', why: 'not JSON (RFC 8259)' },
];

export function jcsInvalidVectors(): JcsInvalidVector[] {
  for (const v of invalid) agree(`jcs-invalid "${v.name}" is refused`, acceptsCanonicalText(v.text), false);
  return invalid;
}
