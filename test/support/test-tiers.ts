/**
 * Which files the unit project of vitest.config.ts and the quick tier of vitest.quick.config.ts
 * run (docs/TESTING.md): one list for both, so the quick tier is exactly the unit tests.
 */

/** The protocol's and the service's unit tests: no engine, no child process, no network. */
export const UNIT_FILES = ['protocol/test/**/*.test.ts', 'test/unit/**/*.test.ts'];

/** Unit files (by name, in test/unit) that replace a module for the whole file (vi.mock): they keep a process of their own. */
export const WITH_MODULE_STATE = ['observability', 'destroy-object'];

export const withModuleStateFiles = WITH_MODULE_STATE.map((name) => `test/unit/${name}.test.ts`);
