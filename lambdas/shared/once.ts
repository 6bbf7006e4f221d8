/** A lazily made, then cached value: module-scope clients and ports are built on first use (cold start), once. */
export function once<T>(make: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= make());
}
