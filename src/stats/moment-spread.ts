// The spread, over SIMEX's draws, of a pair's residual moments (c, va, vb), and what it makes of
// the spread of r = c / sqrt(va vb). SIMEX's own variance (Stefanski and Cook 1995) is the draws'
// variance of the estimate; the estimate is a ratio of moments the draws move together, so its
// spread is taken to first order at the corrected moments:
//   dr = (dc - (r / 2) (dva sqrt(vb / va) + dvb sqrt(va / vb))) / sqrt(va vb).
// At r near 0 that is the spread of c over the corrected variances; at |r| near 1, where a draw
// moves c as much as the variances (a mirrored pair), it goes to 0 as r's own spread does.

const C = 0, A = 1, B = 2;
/** Covariance slots: cc, aa, bb, ca, cb, ab (add() writes them in this order). */
const SLOTS = [[C, C], [A, A], [B, B], [C, A], [C, B], [A, B]] as const;

export class MomentSpread {
  private readonly sums: Float64Array;
  private readonly products: Float64Array;
  private draws = 0;

  constructor(private readonly pairs: number) {
    this.sums = new Float64Array(pairs * 3);
    this.products = new Float64Array(pairs * 6);
  }

  add(p: number, c: number, va: number, vb: number): void {
    // in SIMEX's inner loop (pairs x draws x lambdas): no arrays made per call
    const s = this.sums, q = this.products, i = p * 3, j = p * 6;
    s[i] += c; s[i + 1] += va; s[i + 2] += vb;
    q[j] += c * c; q[j + 1] += va * va; q[j + 2] += vb * vb; q[j + 3] += c * va; q[j + 4] += c * vb; q[j + 5] += va * vb;
  }

  /** Call once per draw, after its pairs are added. */
  drawn(): void {
    this.draws++;
  }

  /**
   * The draws' variance of r for pair p, to first order at the corrected moments (c, va, vb);
   * 0 with fewer than two draws or a variance that is not positive.
   */
  rVariance(p: number, c: number, va: number, vb: number): number {
    const d = this.draws;
    if (d < 2 || !(va > 0) || !(vb > 0)) return 0;
    const cov = SLOTS.map(([i, j], k) => (this.products[p * 6 + k] - (this.sums[p * 3 + i] * this.sums[p * 3 + j]) / d) / (d - 1));
    const [cc, aa, bb, ca, cb, ab] = cov;
    const r = Math.max(-1, Math.min(1, c / Math.sqrt(va * vb)));
    const ga = -(r / 2) * Math.sqrt(vb / va), gb = -(r / 2) * Math.sqrt(va / vb);
    const v = cc + ga * ga * aa + gb * gb * bb + 2 * ga * ca + 2 * gb * cb + 2 * ga * gb * ab;
    return Math.max(0, v / (va * vb));
  }
}
