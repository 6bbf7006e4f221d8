/**
 * The browser build of @agent-ledger/protocol, as a Vite (Rollup) plugin: the modules that
 * use node:crypto or node:buffer are swapped for their twins in src/browser/, which have the
 * same exports and reach the same verdicts on @noble/hashes and @noble/curves. Every other
 * module is shared as it is, so the console verifies with the code the service runs.
 *
 * Used by console/vite.config.ts, and by the protocol-browser project of vitest.config.ts, which
 * runs the protocol's vector tests again with the twins in place. Any other node: import reaching the
 * browser graph from src/ fails the build rather than shipping a broken bundle.
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('./src/', import.meta.url));

/** The Node-bound modules of src/ that have a twin in src/browser/ (same file name). */
export const BROWSER_TWINS = ['base64url', 'base64', 'hash', 'ed25519', 'merklehash', 'uuid'] as const;

/** The subset of the Vite/Rollup plugin interface used here (protocol does not depend on Vite). */
export interface ProtocolBrowserPlugin {
  name: string;
  enforce: 'pre';
  resolveId(source: string, importer: string | undefined): string | null;
}

export function protocolBrowserPlugin(): ProtocolBrowserPlugin {
  const twins = new Map<string, string>(BROWSER_TWINS.map((name) => [join(SRC, `${name}.ts`), join(SRC, 'browser', `${name}.ts`)]));
  return {
    name: 'agent-ledger-protocol-browser',
    enforce: 'pre',
    resolveId(source, importer) {
      if (importer === undefined || !importer.startsWith(SRC)) return null;
      if (source.startsWith('node:')) {
        throw new Error(`${importer} imports ${source}: give it a twin in protocol/src/browser/ (protocol/browser-plugin.ts)`);
      }
      if (!source.startsWith('.')) return null;
      const target = resolve(dirname(importer), source.replace(/\.js$/, '.ts'));
      return twins.get(target) ?? null;
    },
  };
}
