// No import cycles in the service's code (docs/ARCHITECTURE.md, The dependency rule): a cycle is a dependency
// pointing the wrong way, and it makes module load order (and so cold starts) fragile.
// madge resolves the NodeNext `.js` specifiers to the `.ts` sources through tsconfig.json.
import madge from 'madge';
import { describe, expect, it } from 'vitest';

const root = new URL('../..', import.meta.url).pathname;

describe('import graph', () => {
  it('has no cycles in lambdas/, lib/, local/ and scripts/', async () => {
    const graph = await madge(['lambdas', 'lib', 'local', 'scripts'], {
      baseDir: root,
      fileExtensions: ['ts'],
      tsConfig: `${root}tsconfig.json`,
      excludeRegExp: [/\.d\.ts$/],
    });
    expect(Object.keys(graph.obj()).length).toBeGreaterThan(150);
    expect(graph.circular()).toEqual([]);
  }, 60_000);
});
