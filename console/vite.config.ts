/**
 * The console's build: Preact (JSX through Vite's own transform, no plugin), the protocol
 * package's browser modules (Vite resolves protocol/package.json `imports` under the `browser`
 * condition, so `#platform/...` is the @noble twins) and the route table's roles, so each
 * page shows only what the signed-in role may do with the same rules the server enforces.
 * `npm ci` builds it (this workspace's `prepare`); the local stack and CloudFront serve dist/.
 * The charting library (visx, written for React) runs on preact/compat: only the chart
 * module imports it, so only its lazily loaded chunk carries compat (src/charts/).
 */
import { defineConfig } from 'vite';
import { routeRoles } from './build/route-roles.js';

export default defineConfig({
  define: { __ROUTE_ROLES__: JSON.stringify(routeRoles()) },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  resolve: {
    alias: [
      { find: /^react$/, replacement: 'preact/compat' },
      { find: /^react-dom$/, replacement: 'preact/compat' },
      { find: /^react\/jsx-runtime$/, replacement: 'preact/jsx-runtime' },
    ],
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // A CSP of script-src 'self' (local/console-assets.ts, lib/console.ts): no inline module preload polyfill.
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
  },
  server: {
    // `npm run dev -w console` next to `npm start`: the API stays on the local stack.
    proxy: Object.fromEntries(['/v1', '/api', '/.well-known'].map((prefix) => [prefix, process.env.LEDGER_URL ?? 'http://127.0.0.1:3000'])),
  },
});
