/**
 * A set of epoch windows `[start_time, end_time)` with a compact text form, for the export
 * writer's resume state (docs/EXPORT.md, "Writing in pieces").
 *
 * The writer must remember which epochs the operations it wrote point to, but a year-long
 * export can point to tens of thousands of them, and its resume state lives on a DynamoDB
 * item (400 KB). An organization's windows never overlap (docs/PROTOCOL.md "Merkle epochs":
 * one epoch per aligned window), so a window is identified by its interval, and a set of
 * them is a list of maximal runs of adjacent windows. In text that list is delta-encoded in
 * units of the largest common step, or written as a bitmap of steps when that is shorter:
 * the bitmap bounds a 366-day export with 5-minute windows at about 18 KB whatever the
 * pattern, and typical (bursty) activity needs far less.
 */
import { b64uDecode, b64uEncode } from '../encoding/base64url.js';
import { ProtocolError } from '../errors/protocolerror.js';

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

function invalid(message: string): never {
  throw new ProtocolError('INVALID_CHECKPOINT', `window set: ${message}`);
}

function parseBase36(text: string): number {
  if (!/^[0-9a-z]+$/.test(text)) invalid(`'${text}' is not a base-36 number`);
  const n = Number.parseInt(text, 36);
  if (!Number.isSafeInteger(n)) invalid(`'${text}' is out of range`);
  return n;
}

/**
 * Disjoint, non-adjacent half-open intervals in ascending order.
 *
 * @example
 * const set = new WindowSet();
 * set.add(0, 300000); set.add(300000, 600000);
 * set.runs;                 // 1: adjacent windows merge
 * set.has(300000, 600000);  // true
 */
export class WindowSet {
  /** [start0, end0, start1, end1, ...], strictly increasing, runs never touching. */
  private readonly bounds: number[] = [];

  /** Number of runs of adjacent windows. */
  get runs(): number {
    return this.bounds.length / 2;
  }

  /** The smallest start and the largest end, or null when empty. */
  span(): { start: number; end: number } | null {
    if (this.bounds.length === 0) return null;
    return { start: this.bounds[0] as number, end: this.bounds[this.bounds.length - 1] as number };
  }

  /** Index of the last run whose start is <= t, or -1. */
  private runAtOrBefore(t: number): number {
    let lo = 0;
    let hi = this.runs - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if ((this.bounds[2 * mid] as number) <= t) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }

  /** True when `[start, end)` lies inside the set. */
  has(start: number, end: number): boolean {
    const i = this.runAtOrBefore(start);
    return i >= 0 && end <= (this.bounds[2 * i + 1] as number);
  }

  /**
   * Add the window `[start, end)`. Returns true when it was new, false when it was already
   * in the set. Throws ProtocolError `OVERLAPPING_WINDOWS` when it overlaps the set only in
   * part: two epochs of one organization whose windows overlap.
   *
   * @example
   * const set = new WindowSet();
   * set.add(0, 300000);      // true
   * set.add(0, 300000);      // false
   * set.add(150000, 450000); // throws OVERLAPPING_WINDOWS
   */
  add(start: number, end: number): boolean {
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end <= start) {
      throw new ProtocolError('INVALID_WINDOW', `window [${start}, ${end}) is not a non-empty interval of safe integers`);
    }
    if (this.has(start, end)) return false;
    const i = this.runAtOrBefore(start);
    const prevEnd = i >= 0 ? (this.bounds[2 * i + 1] as number) : -1;
    const nextStart = i + 1 < this.runs ? (this.bounds[2 * (i + 1)] as number) : Number.POSITIVE_INFINITY;
    if (start < prevEnd || end > nextStart) {
      throw new ProtocolError('OVERLAPPING_WINDOWS', `window [${start}, ${end}) overlaps another epoch's window`);
    }
    const joinsPrev = start === prevEnd;
    const joinsNext = end === nextStart;
    if (joinsPrev && joinsNext) this.bounds.splice(2 * i + 1, 2);
    else if (joinsPrev) this.bounds[2 * i + 1] = end;
    else if (joinsNext) this.bounds[2 * (i + 1)] = start;
    else this.bounds.splice(2 * (i + 1), 0, start, end);
    return true;
  }

  /**
   * The set as text: `''` when empty, else `r.<unit>.<first>.<n,n,...>` (run lengths and
   * gaps in units) or `b.<unit>.<first>.<bitmap b64u>`, numbers in base 36.
   *
   * @example
   * const set = new WindowSet(); set.add(600000, 900000); set.add(1200000, 1500000);
   * set.encode();                                    // 'b.6fhc.cuyo.oA' (bitmap 101)
   * WindowSet.decode(set.encode()).has(600000, 900000); // true
   */
  encode(): string {
    const b = this.bounds;
    if (b.length === 0) return '';
    const first = b[0] as number;
    let unit = 0;
    for (let k = 1; k < b.length; k++) unit = gcd(unit, (b[k] as number) - (b[k - 1] as number));
    const steps: string[] = [];
    for (let k = 1; k < b.length; k++) steps.push((((b[k] as number) - (b[k - 1] as number)) / unit).toString(36));
    const head = `${unit.toString(36)}.${first.toString(36)}`;
    const runs = `r.${head}.${steps.join(',')}`;
    const bits = ((b[b.length - 1] as number) - first) / unit;
    // 6 bits per base64url character: build the bitmap only when it would be shorter.
    if (bits / 6 >= runs.length) return runs;
    const bitmap = new Uint8Array(Math.ceil(bits / 8));
    for (let r = 0; r < b.length; r += 2) {
      for (let t = ((b[r] as number) - first) / unit; t < ((b[r + 1] as number) - first) / unit; t++) {
        bitmap[t >> 3] = (bitmap[t >> 3] as number) | (0x80 >> (t & 7));
      }
    }
    return `b.${head}.${b64uEncode(bitmap)}`;
  }

  /**
   * Rebuild a set from {@link encode}. Throws ProtocolError `INVALID_CHECKPOINT` for text it
   * did not produce.
   *
   * @example
   * WindowSet.decode('').span(); // null
   */
  static decode(text: string): WindowSet {
    const set = new WindowSet();
    if (text === '') return set;
    if (typeof text !== 'string') invalid('not a string');
    const parts = text.split('.');
    if (parts.length !== 4) invalid('expected four dot-separated parts');
    const [kind, unitText, firstText, data] = parts as [string, string, string, string];
    const unit = parseBase36(unitText);
    let t = parseBase36(firstText);
    if (unit === 0) invalid('unit is zero');
    const out: number[] = [];
    if (kind === 'r') {
      const steps = data.split(',').map(parseBase36);
      if (steps.length % 2 !== 1) invalid('run list has an even number of steps');
      out.push(t);
      for (const s of steps) {
        if (s === 0) invalid('empty run or gap');
        t += s * unit;
        if (!Number.isSafeInteger(t)) invalid('bound out of range');
        out.push(t);
      }
    } else if (kind === 'b') {
      let bitmap: Uint8Array;
      try {
        bitmap = b64uDecode(data);
      } catch {
        invalid('bitmap is not base64url');
      }
      let open = false;
      for (let k = 0; k < bitmap.length * 8; k++) {
        const bit = ((bitmap[k >> 3] as number) & (0x80 >> (k & 7))) !== 0;
        if (bit !== open) {
          out.push(t + k * unit);
          open = bit;
        }
      }
      if (open) out.push(t + bitmap.length * 8 * unit);
      if (out[0] !== t) invalid('bitmap does not start with a set bit');
    } else {
      invalid(`unknown kind '${kind}'`);
    }
    for (const bound of out) set.bounds.push(bound);
    return set;
  }
}
