/** A lazily made, then cached value: module-scope clients and ports are built on first use (cold start), once. */
export function once<T>(make: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= make());
}

/**
 * `read` at most once per key: later calls with a key share the first call's promise. A failed
 * read is kept too, so it fails every caller that asked for that key, as one read at that moment would.
 */
export function oncePerKey<T>(read: (key: string) => Promise<T>): (key: string) => Promise<T> {
  const reads = new Map<string, Promise<T>>();
  return (key) => {
    let value = reads.get(key);
    if (!value) {
      value = read(key);
      reads.set(key, value);
    }
    return value;
  };
}
