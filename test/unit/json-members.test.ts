// I-JSON member names (RFC 7493 §2.3): lambdas/http/json-members.ts.
import { describe, expect, it } from 'vitest';
import { repeatedMemberName } from '../../lambdas/http/json-members.js';

describe('repeatedMemberName', () => {
  it.each([
    ['{"a":1,"a":2}', 'a'],
    ['{"a":1,"b":{"c":1,"c":2}}', 'b.c'],
    ['[{"x":1},{"y":1,"y":1}]', '1.y'],
    ['{"a\\u0062":1,"ab":2}', 'ab'],
    ['{"p":{"q":[{"r":{"s":1,"s":1}}]}}', 'p.q.0.r.s'],
  ])('finds the repeat in %s', (text, path) => {
    expect(repeatedMemberName(text)).toBe(path);
  });

  it.each(['{}', '[]', '"a"', 'null', '{"a":{"a":{"a":1}}}', '[{"a":1},{"a":2}]', '{"a":1,"A":1}', '{"a":{"b":1},"b":{"a":1}}'])(
    'finds none in %s',
    (text) => {
      expect(repeatedMemberName(text)).toBeUndefined();
    },
  );
});
