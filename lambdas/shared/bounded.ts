/**
 * Runs `fn` over `items` with at most `limit` calls in flight. After the first failure no new
 * call starts; the promise rejects with that failure once the calls in flight have settled,
 * so nothing keeps running behind the caller's back.
 */
export async function forEachBounded<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const lane = async () => {
    while (!failure && next < items.length) {
      const index = next++;
      try {
        await fn(items[index] as T, index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
  if (failure) throw failure.error;
}

/** `fn` over `items` as forEachBounded runs it; the results in the order of `items`. */
export async function mapBounded<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  await forEachBounded(items, limit, async (item, index) => {
    results[index] = await fn(item, index);
  });
  return results;
}
