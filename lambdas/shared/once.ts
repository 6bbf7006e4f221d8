/** A lazily made, then cached value: module-scope clients and ports are built on first use (cold start), once. */
export function once<T>(make: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= make());
}

/**
 * `read` at most once per arguments (compared by their JSON): later calls with the same
 * arguments share the first call's promise. A failed read is kept too, so it fails every caller
 * that asked for it, as one read at that moment would.
 */
export function oncePerKey<A extends unknown[], T>(read: (...args: A) => Promise<T>): (...args: A) => Promise<T> {
  const reads = new Map<string, Promise<T>>();
  return (...args) => {
    const key = JSON.stringify(args);
    let value = reads.get(key);
    if (!value) {
      value = read(...args);
      reads.set(key, value);
    }
    return value;
  };
}
