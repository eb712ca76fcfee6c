/**
 * Average ranks, 1-based, ties sharing the mean of the ranks they span:
 * scipy.stats.rankdata(x, method='average').
 * The order comes from a radix sort of the values' bits (Ranker.argsort): several times faster
 * than Array.prototype.sort with a comparator, a merge sort, or a native sort followed by binary
 * searches, and ranking is most of a Spearman analysis's time.
 */
import { toFloat64 } from './validate.ts';

export function rank(x: ArrayLike<number>): Float64Array {
  const values = x instanceof Float64Array ? x : toFloat64(x, 'x');
  const out = new Float64Array(values.length);
  rankInto(values, out, new Ranker(values.length));
  return out;
}

/** Reusable scratch for ranking many series of the same length without allocating. */
export class Ranker {
  readonly order: Uint32Array;
  /** x in ascending order (after argsort). */
  readonly sorted: Float64Array;
  private readonly tmpOrder: Uint32Array;
  private readonly keyHi: Uint32Array;
  private readonly keyLo: Uint32Array;
  private readonly counts = new Uint32Array(256);
  private readonly cell = new Float64Array(1);
  private readonly cellWords = new Uint32Array(this.cell.buffer);
  constructor(readonly n: number) {
    this.order = new Uint32Array(n);
    this.tmpOrder = new Uint32Array(n);
    this.sorted = new Float64Array(n);
    this.keyHi = new Uint32Array(n);
    this.keyLo = new Uint32Array(n);
  }

  /**
   * Fills `order` with the indices of x in ascending order of value (stable) and `sorted` with the
   * values: an LSD radix sort (8-bit digits) of the IEEE-754 bits mapped to unsigned keys that sort
   * like the numbers (negative: all bits flipped; positive: sign bit set; -0 taken as +0). Passes
   * whose digit is the same for every value are skipped.
   */
  argsort(x: Float64Array): Uint32Array {
    const n = this.n;
    const { keyHi, keyLo, counts, cell, cellWords } = this;
    const little = LITTLE_ENDIAN;
    for (let i = 0; i < n; i++) {
      cell[0] = x[i] === 0 ? 0 : x[i];
      let hi = cellWords[little ? 1 : 0], lo = cellWords[little ? 0 : 1];
      if (hi & 0x80000000) { hi = ~hi >>> 0; lo = ~lo >>> 0; } else { hi = (hi | 0x80000000) >>> 0; }
      keyHi[i] = hi; keyLo[i] = lo;
    }
    let src = this.order, dst = this.tmpOrder;
    for (let i = 0; i < n; i++) src[i] = i;
    for (let pass = 0; pass < 8; pass++) {
      const key = pass < 4 ? keyLo : keyHi;
      const shift = (pass & 3) * 8;
      counts.fill(0);
      for (let i = 0; i < n; i++) counts[(key[i] >>> shift) & 255]++;
      if (counts[(key[0] >>> shift) & 255] === n) continue;
      let sum = 0;
      for (let d = 0; d < 256; d++) { const c = counts[d]; counts[d] = sum; sum += c; }
      for (let i = 0; i < n; i++) { const idx = src[i]; dst[counts[(key[idx] >>> shift) & 255]++] = idx; }
      const t = src; src = dst; dst = t;
    }
    if (src !== this.order) this.order.set(src);
    const sorted = this.sorted;
    for (let i = 0; i < n; i++) sorted[i] = x[this.order[i]];
    return this.order;
  }
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Ranks `x` (finite values) into `out`. */
export function rankInto(x: Float64Array, out: Float64Array, ranker: Ranker): void {
  const order = ranker.argsort(x);
  const sorted = ranker.sorted;
  const n = x.length;
  let i = 0;
  while (i < n) {
    let j = i + 1;
    const v = sorted[i];
    while (j < n && sorted[j] === v) j++;
    // positions i..j-1 (0-based) tie: average 1-based rank
    const r = (i + j + 1) / 2;
    for (let t = i; t < j; t++) out[order[t]] = r;
    i = j;
  }
}
