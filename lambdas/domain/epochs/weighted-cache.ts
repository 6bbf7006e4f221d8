/**
 * A least-recently-used cache bounded by the total weight of its entries (for epoch trees:
 * their leaf counts), so a warm function's memory stays bounded however many epochs it
 * proves from. An entry heavier than the bound is still returned to its caller, just not kept.
 */
export class WeightedCache<V> {
  /** Least recently used first: Map keeps insertion order and a hit re-inserts. */
  private readonly entries = new Map<string, { value: V; weight: number }>();
  private total = 0;

  constructor(private readonly maxWeight: number) {}

  get weight(): number {
    return this.total;
  }

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: V, weight: number): void {
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.total -= old.weight;
    }
    if (weight > this.maxWeight) return;
    this.entries.set(key, { value, weight });
    this.total += weight;
    for (const [oldest, entry] of this.entries) {
      if (this.total <= this.maxWeight) break;
      this.entries.delete(oldest);
      this.total -= entry.weight;
    }
  }
}
