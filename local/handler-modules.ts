/**
 * Loads handler modules by their route/worker table name (`public/health` →
 * lambdas/http/public/health.ts) on first use and caches them, as a warm Lambda keeps its
 * module. Loading lazily means process.env is set (stack.ts) before any handler's module
 * scope runs, exactly as in Lambda where the environment precedes the cold start. Each call
 * runs with a logger of its own, as each Lambda invocation has.
 */
import type { Context } from 'aws-lambda';
import { withOwnLogger } from '../lambdas/logger.js';

type LoadedHandler<E, R> = (event: E, context: Context) => Promise<R>;

const lambdasDir = new URL('../lambdas/', import.meta.url);
const cache = new Map<string, Promise<unknown>>();

/**
 * The `handler` export of `lambdas/<kind>/<name>.ts`. A module that fails to load is not
 * cached, so fixing the file and retrying works without a restart.
 */
export function loadHandler<E, R>(kind: 'http' | 'workers', name: string): Promise<LoadedHandler<E, R>> {
  if (!/^[\w-]+(\/[\w-]+)*$/.test(name)) return Promise.reject(new Error(`invalid handler name "${name}"`));
  const url = new URL(`${kind}/${name}.ts`, lambdasDir).href;
  let loading = cache.get(url);
  if (!loading) {
    loading = import(url).then((module: { handler?: unknown }) => {
      if (typeof module.handler !== 'function') throw new Error(`lambdas/${kind}/${name}.ts exports no handler function`);
      const handler = module.handler as LoadedHandler<unknown, unknown>;
      // Every function runs in this one process: each invocation logs with its own context (lambdas/logger.ts).
      return (event: unknown, context: Context) => withOwnLogger(() => handler(event, context));
    });
    loading.catch(() => cache.delete(url));
    cache.set(url, loading);
  }
  return loading as Promise<LoadedHandler<E, R>>;
}
