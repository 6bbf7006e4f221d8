import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CanonicalizationError, ProtocolError, canonicalBytes, canonicalEndIn, canonicalize } from '../../src/index.js';
import { hex, loadVectors, utf8 } from '../vectors.js';

type JcsVector = { name: string; input: unknown; canonical: string };

describe('jcs.json vectors', () => {
  const vectors = loadVectors<JcsVector[]>('jcs.json');

  it('has vectors', () => {
    expect(vectors.length).toBeGreaterThan(0);
  });

  for (const v of vectors) {
    it(`reproduces "${v.name}"`, () => {
      expect(canonicalize(v.input)).toBe(v.canonical);
      expect(canonicalBytes(v.input)).toEqual(utf8(v.canonical));
    });
  }
});

describe('RFC 8785 published examples', () => {
  it('§3.2.3 sample object', () => {
    // Parsed from the RFC's JSON text so that the number literals are exactly the RFC's.
    const input: unknown = JSON.parse(String.raw`{
      "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
      "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
      "literals": [null, true, false]
    }`);
    const expected = String.raw`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`;
    expect(canonicalize(input)).toBe(expected);
    // RFC 8785 §3.2.4 gives the UTF-8 bytes; spot-check the multi-byte euro sign and length.
    const bytes = canonicalBytes(input);
    expect(bytes.length).toBe(utf8(expected).length);
    expect(Buffer.from(bytes).includes(Buffer.from([0xe2, 0x82, 0xac]))).toBe(true);
  });

  it('§3.2.3 sorting example (UTF-16 code units)', () => {
    const input: unknown = JSON.parse(String.raw`{
      "\u20ac": "Euro Sign",
      "\r": "Carriage Return",
      "\ufb33": "Hebrew Letter Dalet With Dagesh",
      "1": "One",
      "\ud83d\ude00": "Emoji: Grinning Face",
      "\u0080": "Control",
      "\u00f6": "Latin Small Letter O With Diaeresis",
      "</script>": "Browser Challenge"
    }`);
    const out = canonicalize(input);
    expect(out).toBe(
      '{"\\r":"Carriage Return","1":"One","</script>":"Browser Challenge","\u0080":"Control",' +
        '"\u00f6":"Latin Small Letter O With Diaeresis","\u20ac":"Euro Sign",' +
        '"\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
    // Emoji (U+1F600, surrogates D83D DE00) sorts before U+FB33: code units, not code points.
    expect(out.indexOf('\ud83d\ude00')).toBeLessThan(out.indexOf('\ufb33'));
  });

  // RFC 8785 Appendix B: IEEE 754 bit patterns and their required serialization.
  const appendixB: [string, string][] = [
    ['0000000000000000', '0'],
    ['8000000000000000', '0'], // minus zero
    ['0000000000000001', '5e-324'],
    ['8000000000000001', '-5e-324'],
    ['7fefffffffffffff', '1.7976931348623157e+308'],
    ['ffefffffffffffff', '-1.7976931348623157e+308'],
    ['4340000000000000', '9007199254740992'],
    ['c340000000000000', '-9007199254740992'],
    ['4430000000000000', '295147905179352830000'],
    ['44b52d02c7e14af5', '9.999999999999997e+22'],
    ['44b52d02c7e14af6', '1e+23'],
    ['44b52d02c7e14af7', '1.0000000000000001e+23'],
    ['444b1ae4d6e2ef4e', '999999999999999700000'],
    ['444b1ae4d6e2ef4f', '999999999999999900000'],
    ['444b1ae4d6e2ef50', '1e+21'],
    ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
    ['3eb0c6f7a0b5ed8d', '0.000001'],
    ['41b3de4355555553', '333333333.3333332'],
    ['41b3de4355555554', '333333333.33333325'],
    ['41b3de4355555555', '333333333.3333333'],
    ['41b3de4355555556', '333333333.3333334'],
    ['41b3de4355555557', '333333333.33333343'],
    ['becbf647612f3696', '-0.0000033333333333333333'],
    ['43143ff3c1cb0959', '1424953923781206.2'],
  ];
  for (const [bits, expected] of appendixB) {
    it(`Appendix B ${bits} -> ${expected}`, () => {
      const value = new DataView(hex(bits).buffer).getFloat64(0, false);
      expect(canonicalize(value)).toBe(expected);
    });
  }
  for (const bits of ['7fffffffffffffff', '7ff0000000000000', 'fff0000000000000']) {
    it(`Appendix B ${bits} (NaN / Infinity) is an error`, () => {
      const value = new DataView(hex(bits).buffer).getFloat64(0, false);
      expect(() => canonicalize(value)).toThrow(CanonicalizationError);
    });
  }

  const literals: [number, string][] = [
    [0, '0'],
    [-0, '0'],
    [1e21, '1e+21'],
    [1e-7, '1e-7'],
    // eslint-disable-next-line no-loss-of-precision -- the RFC's own literal, rounding is the point
    [333333333.33333329, '333333333.3333333'],
    [4.5, '4.5'],
    [2e-3, '0.002'],
    [0.000001, '0.000001'],
    [1e30, '1e+30'],
    [-5e-324, '-5e-324'],
    [1e20, '100000000000000000000'],
    [-1.5, '-1.5'],
  ];
  for (const [value, expected] of literals) {
    it(`number ${Object.is(value, -0) ? '-0' : String(value)} -> ${expected}`, () => {
      expect(canonicalize(value)).toBe(expected);
      expect(canonicalize([value])).toBe(`[${expected}]`);
    });
  }
});

describe('string escaping (RFC 8785 §3.2.2.2)', () => {
  it('escapes the two-character forms and other controls as lowercase \\u00xx', () => {
    expect(canonicalize('\b\t\n\f\r"\\')).toBe('"\\b\\t\\n\\f\\r\\"\\\\"');
    expect(canonicalize('\u0000\u0001\u000b\u001f')).toBe('"\\u0000\\u0001\\u000b\\u001f"');
  });
  it('leaves /, DEL, U+2028 and non-ASCII unescaped', () => {
    expect(canonicalize('/\u007f\u2028\u2029é😀')).toBe('"/\u007f\u2028\u2029é😀"');
  });
  it('accepts well-formed surrogate pairs', () => {
    expect(canonicalize({ '\ud83d\ude00': '\ud83d\ude00' })).toBe('{"😀":"😀"}');
  });
});

describe('accepted shapes', () => {
  it('accepts null-prototype objects', () => {
    const o = Object.create(null) as Record<string, unknown>;
    o.b = 1;
    o.a = 2;
    expect(canonicalize(o)).toBe('{"a":2,"b":1}');
  });
  it('accepts the same object twice when it is not a cycle', () => {
    const shared = { x: 1 };
    expect(canonicalize({ a: shared, b: [shared, shared] })).toBe('{"a":{"x":1},"b":[{"x":1},{"x":1}]}');
  });
  it('keeps a "__proto__" own member', () => {
    expect(canonicalize(JSON.parse('{"__proto__":1,"a":2}'))).toBe('{"__proto__":1,"a":2}');
  });
  it('sorts integer-like keys as strings', () => {
    expect(canonicalize({ 10: 'a', 9: 'b', 1: 'c' })).toBe('{"1":"c","10":"a","9":"b"}');
  });
});

describe('rejections', () => {
  class Thing {
    a = 1;
  }
  class MyArray extends Array<number> {}
  const cyclicObject: Record<string, unknown> = { a: 1 };
  cyclicObject.self = cyclicObject;
  const cyclicArray: unknown[] = [1];
  cyclicArray.push([cyclicArray]);
  // eslint-disable-next-line no-sparse-arrays
  const sparse = [1, , 3];
  let deep: unknown = null;
  for (let i = 0; i < 200_000; i++) deep = [deep];

  const cases: [string, unknown][] = [
    ['NaN', NaN],
    ['Infinity', Infinity],
    ['-Infinity', -Infinity],
    ['NaN nested', { a: [1, NaN] }],
    ['undefined', undefined],
    ['undefined member value', { a: undefined }],
    ['undefined array element', [1, undefined]],
    ['sparse array hole', sparse],
    ['bigint', 1n],
    ['bigint nested', { a: 1n }],
    ['symbol', Symbol('s')],
    ['symbol member value', { a: Symbol('s') }],
    ['symbol-keyed member', { [Symbol('k')]: 1 }],
    ['function', () => 1],
    ['function member (toJSON is not honoured)', { toJSON: () => 'x' }],
    ['lone high surrogate in string', 'a\ud800b'],
    ['lone low surrogate in string', '\udc00'],
    ['reversed surrogate pair', '\ude00\ud83d'],
    ['lone surrogate in key', { '\ud800': 1 }],
    ['Date', new Date(0)],
    ['Map', new Map([['a', 1]])],
    ['Set', new Set([1])],
    ['class instance', new Thing()],
    ['Buffer', Buffer.from('ab')],
    ['Uint8Array', new Uint8Array([1])],
    ['RegExp', /x/],
    ['boxed String', new String('x')],
    ['boxed Number', new Number(1)],
    ['Array subclass', MyArray.from([1])],
    ['Error', new Error('x')],
    ['object cycle', cyclicObject],
    ['array cycle', cyclicArray],
    ['excessive nesting', deep],
  ];
  for (const [name, value] of cases) {
    it(`rejects ${name}`, () => {
      let caught: unknown;
      try {
        canonicalize(value);
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(CanonicalizationError);
      expect(caught).toBeInstanceOf(ProtocolError);
      expect((caught as CanonicalizationError).code).toBe('CANONICALIZATION');
      expect(() => canonicalBytes(value)).toThrow(CanonicalizationError);
    });
  }
});

describe('properties', () => {
  const reorder = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(reorder);
    if (v !== null && typeof v === 'object') {
      const entries: [string, unknown][] = Object.entries(v);
      return Object.fromEntries(entries.reverse().map(([k, x]) => [k, reorder(x)]));
    }
    return v;
  };

  it('is idempotent through JSON.parse and its output parses (ASCII strings)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (x) => {
        const c = canonicalize(x);
        expect(() => JSON.parse(c) as unknown).not.toThrow();
        expect(canonicalize(JSON.parse(c) as unknown)).toBe(c);
      }),
      { numRuns: 300 },
    );
  });

  it('is idempotent through JSON.parse (full Unicode strings)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: 'grapheme' }), (x) => {
        const c = canonicalize(x);
        expect(canonicalize(JSON.parse(c))).toBe(c);
        expect(new TextDecoder('utf-8', { fatal: true }).decode(canonicalBytes(x))).toBe(c);
      }),
      { numRuns: 200 },
    );
  });

  it('does not depend on member insertion order', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (x) => {
        expect(canonicalize(reorder(x))).toBe(canonicalize(x));
      }),
      { numRuns: 200 },
    );
  });

  it('serializes every finite double like Number.prototype.toString', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (d) => {
        const c = canonicalize(d);
        expect(c).toBe(Object.is(d, -0) ? '0' : String(d));
        expect(Object.is(JSON.parse(c), d) || (d === 0 && JSON.parse(c) === 0)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});

describe('canonicalEndIn: the canonical form compared piece by piece', () => {
  const encode = (text: string) => new TextEncoder().encode(text);

  it('finds where the canonical form ends inside other bytes, and nothing when one byte differs (fast-check)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string(), fc.string(), (value, before, after) => {
        const canonical = canonicalBytes(value);
        const head = encode(before);
        const bytes = new Uint8Array([...head, ...canonical, ...encode(after)]);
        expect(canonicalEndIn(value, bytes, head.byteLength)).toBe(head.byteLength + canonical.byteLength);
        const changed = bytes.slice();
        const at = head.byteLength + Math.floor(canonical.byteLength / 2);
        changed[at] = (changed[at] as number) ^ 0x01;
        expect(canonicalEndIn(value, changed, head.byteLength)).toBeNull();
        expect(canonicalEndIn(value, bytes.subarray(0, head.byteLength + canonical.byteLength - 1), head.byteLength)).toBeNull();
      }),
    );
  });

  it('across many pieces, with characters of every UTF-8 length at their edges', () => {
    const value = { rows: Array.from({ length: 20_000 }, (_, i) => ({ i, text: `é🙂中${'x'.repeat(i % 7)}` })) };
    const canonical = canonicalBytes(value);
    expect(canonical.byteLength).toBeGreaterThan(4 * (1 << 16));
    expect(canonicalEndIn(value, canonical, 0)).toBe(canonical.byteLength);
    const changed = canonical.slice();
    changed[canonical.byteLength - 3] = 0x30;
    expect(canonicalEndIn(value, changed, 0)).toBeNull();
  });

  it('refuses what has no canonical form, as canonicalize does', () => {
    expect(() => canonicalEndIn({ a: Number.NaN }, encode('{"a":null}'), 0)).toThrow(CanonicalizationError);
  });
});
