/**
 * rouge-score's BootstrapAggregator (rouge_score/scoring.py), the aggregate study B reported: the HF
 * `datasets` / `evaluate` "rouge" metric with its default use_aggregator=True returns, per ROUGE
 * type, low / mid / high = the 2.5th, 50th and 97.5th percentiles of 1000 bootstrap means of the
 * per-example (precision, recall, F) rows; indicator_cross.py printed `rougeL.mid`. The mid is the
 * median of resampled means: close to, but not, the mean over examples (`meanRougeScores`).
 *
 * Replayed bit for bit with a seed: the resampling draws from numpy's legacy global generator
 * (MT19937 seeded as np.random.seed(seed); choice(n, n) = randint by masked rejection on 32-bit
 * draws), one stream across the ROUGE types in the order the metric adds them (rouge1, rouge2,
 * rougeL, rougeLsum), means summed row by row as numpy reduces axis 0, and percentiles with numpy's
 * linear interpolation (its lerp, which computes from the upper point when the fraction >= 0.5).
 * The official runs were unseeded, so their exact mids cannot be recovered; a seed makes ours
 * reproducible. Golden values: test/metrics/golden/make_bootstrap_bleu.py (numpy).
 */
import { ROUGE_TYPES, type PrfScore, type RougeScores, type RougeType } from './rouge.ts';

export interface BootstrapOptions {
  /** Resamples (rouge-score's n_samples). Default 1000. */
  samples?: number;
  /** Confidence of [low, high] (rouge-score's confidence_interval). Default 0.95. */
  confidence?: number;
  /** np.random.seed(seed) before the first ROUGE type. Default 0. */
  seed?: number;
}

export interface AggregateScore { low: PrfScore; mid: PrfScore; high: PrfScore }

/**
 * MT19937 seeded as numpy's np.random.seed(seed) seeds it (init_genrand), giving genrand_int32.
 * Written out because @stdlib/random-base-mt19937 refuses the seed 0, which numpy accepts.
 */
function mt19937(seed: number): () => number {
  const mt = new Uint32Array(624);
  mt[0] = seed >>> 0;
  for (let i = 1; i < 624; i++) {
    const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
    // 1812433253 * prev + i, in 32 bits (split to stay exact in doubles).
    mt[i] = ((((prev & 0xffff0000) >>> 16) * 1812433253) << 16) + (prev & 0x0000ffff) * 1812433253 + i;
  }
  let index = 624;
  return () => {
    if (index >= 624) {
      for (let k = 0; k < 624; k++) {
        const y = (mt[k] & 0x80000000) | (mt[(k + 1) % 624] & 0x7fffffff);
        mt[k] = mt[(k + 397) % 624] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      index = 0;
    }
    let y = mt[index++];
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  };
}

/** Uniform integers in [0, n) as numpy's legacy RandomState.randint(0, n) draws them. */
function numpyLegacyRandint(next: () => number): (n: number) => number {
  return (n: number) => {
    const rng = n - 1;
    if (rng === 0) return 0;
    let mask = rng;
    mask |= mask >>> 1; mask |= mask >>> 2; mask |= mask >>> 4; mask |= mask >>> 8; mask |= mask >>> 16;
    mask >>>= 0;
    for (;;) {
      const v = (next() & mask) >>> 0;
      if (v <= rng) return v;
    }
  };
}

/** numpy.percentile(values, q) with the default linear method; `sorted` ascending. */
export function numpyPercentile(sorted: readonly number[], q: number): number {
  const n = sorted.length;
  const index = (q / 100) * (n - 1);
  const lo = Math.floor(index);
  const hi = Math.min(lo + 1, n - 1);
  const t = index - lo;
  const a = sorted[lo];
  const b = sorted[hi];
  const d = b - a;
  // numpy's _lerp: a + d*t, recomputed from b when t >= 0.5 (monotone at the upper end).
  return t >= 0.5 ? b - d * (1 - t) : a + d * t;
}

/** BootstrapAggregator.aggregate() over per-example scores, ROUGE types in rouge-score's order. */
export function bootstrapRouge(scores: readonly RougeScores[], opts: BootstrapOptions = {}): Record<RougeType, AggregateScore> {
  const samples = opts.samples ?? 1000;
  const confidence = opts.confidence ?? 0.95;
  if (scores.length === 0) throw new RangeError('bootstrapRouge: no scores');
  const seed = opts.seed ?? 0;
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
    throw new RangeError(`bootstrapRouge: seed must be a whole number in [0, 2^32), got ${seed}`);
  }
  const randint = numpyLegacyRandint(mt19937(seed));
  const n = scores.length;
  const qs = [100 * ((1 - confidence) / 2), 50, 100 * (1 - (1 - confidence) / 2)];
  const out = {} as Record<RougeType, AggregateScore>;
  for (const type of ROUGE_TYPES) {
    const rows = scores.map((s) => [s[type].p, s[type].r, s[type].f]);
    const means: number[][] = [[], [], []];
    for (let i = 0; i < samples; i++) {
      const idx: number[] = new Array(n);
      for (let j = 0; j < n; j++) idx[j] = randint(n);
      const sum = [0, 0, 0];
      for (const j of idx) { sum[0] += rows[j][0]; sum[1] += rows[j][1]; sum[2] += rows[j][2]; }
      for (let c = 0; c < 3; c++) means[c].push(sum[c] / n);
    }
    const pct = means.map((m) => { const s = [...m].sort((a, b) => a - b); return qs.map((q) => numpyPercentile(s, q)); });
    const at = (k: number): PrfScore => ({ p: pct[0][k], r: pct[1][k], f: pct[2][k] });
    out[type] = { low: at(0), mid: at(1), high: at(2) };
  }
  return out;
}
