/**
 * `npm ci` on the oldest Node the project supports (package.json `engines`, the README's
 * "Node 20.19+") warns about no package: every locked package's own `engines.node` admits that
 * version. A dependency that moves to a newer Node is pinned at its last version that supports
 * ours, or the project's floor is raised with the README, docs/DEPLOY.md and CI.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = (path: string) => JSON.parse(readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8')) as Record<string, unknown>;

type Version = [number, number, number];
const parse = (text: string): Version => {
  const [major = 0, minor = 0, patch = 0] = text.split('.').map((part) => Number.parseInt(part, 10) || 0);
  return [major, minor, patch];
};
const compare = (a: Version, b: Version) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** Whether one comparator set of a range (`>=18 <23`, `^20.9.0`, `20.x`) admits `version`. */
function admitsAll(set: string, version: Version): boolean {
  return set
    .trim()
    .split(/\s+/)
    .filter((part) => part !== '' && part !== '*')
    .every((part) => {
      const match = /^(>=|<=|>|<|\^|~|=)?v?(\d+(?:\.(?:\d+|x|\*))*)$/.exec(part);
      if (!match) return true; // a form this check does not read is left to npm
      const [, op = '=', text = ''] = match;
      const bound = parse(text.replaceAll(/x|\*/g, '0'));
      const c = compare(version, bound);
      if (op === '>=') return c >= 0;
      if (op === '>') return c > 0;
      if (op === '<=') return c <= 0;
      if (op === '<') return c < 0;
      if (op === '^') return c >= 0 && version[0] === bound[0];
      if (op === '~') return c >= 0 && version[0] === bound[0] && version[1] === bound[1];
      return text.includes('x') || text.split('.').length < 3 ? version[0] === bound[0] : c === 0;
    });
}

const admits = (range: string, version: Version) => range.replaceAll(/(>=|<=|>|<|\^|~|=)\s+/g, '$1').split('||').some((set) => admitsAll(set, version));

describe('the Node version the project supports', () => {
  const floor = /^>=\s*(\d+(?:\.\d+){0,2})$/.exec(((root('package.json').engines as { node: string }).node ?? '').trim())?.[1];

  it('is a plain lower bound in package.json', () => {
    expect(floor).toBeDefined();
  });

  it('is admitted by every locked package that names the Node it needs', () => {
    const version = parse(floor!);
    const packages = (root('package-lock.json').packages ?? {}) as Record<string, { engines?: { node?: string } | string[]; optional?: boolean }>;
    const refusing = Object.entries(packages)
      .filter(([path, meta]) => path !== '' && !meta.optional && typeof meta.engines === 'object' && !Array.isArray(meta.engines) && typeof meta.engines.node === 'string')
      .filter(([, meta]) => !admits((meta.engines as { node: string }).node, version))
      .map(([path, meta]) => `${path.replace(/^.*node_modules\//, '')} wants node ${(meta.engines as { node: string }).node}`);
    expect(refusing, `these packages warn EBADENGINE on Node ${floor}: pin a version that supports it`).toEqual([]);
  });

  it('reads ranges as npm does', () => {
    expect(admits('>=22.12.0', parse('20.19.0'))).toBe(false);
    expect(admits('>= 18', parse('20.19.0'))).toBe(true);
    expect(admits('^18.18.0 || ^20.9.0 || >=21.1.0', parse('20.19.0'))).toBe(true);
    expect(admits('^18.18.0 || >=21.1.0', parse('20.19.0'))).toBe(false);
    expect(admits('>=14 <20', parse('20.19.0'))).toBe(false);
    expect(admits('20.x', parse('20.19.0'))).toBe(true);
  });
});
