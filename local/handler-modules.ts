/**
 * Loads handler modules by their route/worker table name (`public/health` →
 * lambdas/http/public/health.ts) on first use and caches them, as a warm Lambda keeps its
 * module. Loading lazily means process.env is set (stack.ts) before any handler's module
 * scope runs, exactly as in Lambda where the environment precedes the cold start.
 */
import type { Context } from 'aws-lambda';

export type LoadedHandler<E, R> = (event: E, context: Context) => Promise<R>;

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
      return module.handler;
    });
    loading.catch(() => cache.delete(url));
    cache.set(url, loading);
  }
  return loading as Promise<LoadedHandler<E, R>>;
}
