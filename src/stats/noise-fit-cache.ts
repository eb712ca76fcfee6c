/**
 * Noise-model fits already made, kept by whoever owns a stretch of work where the same residual
 * series is fitted again: an analysis fits a run's series for its own test and again
 * for its calibration, and the robustness table's levels and differences choices fit the same
 * level residuals. The owner creates one, passes it down (ModelledOptions.fits) and drops it: no
 * state outlives it.
 *
 * A fit is served from here only when every input is the same: the regression columns, the
 * checkpoints, the axes and the series, compared value by value (their bits) on a hit, a hash
 * only finding the candidates. A fit served from here equals a fresh one to the last bit, since
 * the batch fitter's fit of a series does not depend on the other series of its call
 * (noise-model-batch.ts). The last schedule's fitter (its search grid, ~3 MB at 154 checkpoints) is
 * kept too, so calls on the same columns and checkpoints share it.
 */
import { noiseModelFitter } from './noise-model-batch.ts';
import type { NoiseModel, TimeAxis } from './noise-model.ts';

/** The axes a fit tries unless told otherwise. */
export const DEFAULT_AXES: readonly TimeAxis[] = ['step', 'log-step'];

type Fitter = ReturnType<typeof noiseModelFitter>;

/** One schedule: the columns, checkpoints and axes of a call (copies), and the fits made on it by a hash of the series. */
interface Schedule { x: Float64Array[]; steps: Float64Array; axes: string; fits: Map<number, { e: Float64Array; model: NoiseModel }[]> }

export class NoiseFitCache {
  /** Fits served from the cache, and fits made. */
  hits = 0;
  fitted = 0;
  /** The schedules seen and the last one's fitter, shared with the caches made by sharingFitter. */
  private shared: { schedules: Schedule[]; fitter?: { schedule: Schedule; fit: Fitter } } = { schedules: [] };

  /** keepFits false: only the fitter is shared (series that never repeat, such as the calibration's simulated ones). */
  constructor(private readonly keepFits = true) {}

  /**
   * A cache that keeps no fits but shares this one's fitter (one search grid in memory, not two,
   * when the calibration's simulated series are fitted on the run's own control).
   */
  sharingFitter(): NoiseFitCache {
    const view = new NoiseFitCache(false);
    view.shared = this.shared;
    return view;
  }

  /** fitNoiseModel of each series on the columns `x` at `steps` (null where the series is null), fitting only those not kept. */
  fit(
    x: readonly Float64Array[], steps: ArrayLike<number>, series: readonly (Float64Array | null)[], axes: readonly TimeAxis[] = DEFAULT_AXES,
  ): (NoiseModel | null)[] {
    const schedule = this.scheduleOf(x, steps, axes);
    const out: (NoiseModel | null)[] = series.map(() => null);
    const missing: number[] = [];
    series.forEach((e, i) => {
      if (!e) return;
      const kept = this.keepFits ? schedule.fits.get(hashOf(e))?.find((k) => sameBits(k.e, e)) : undefined;
      if (kept) { out[i] = { ...kept.model }; this.hits++; } else missing.push(i);
    });
    if (missing.length === 0) return out;
    const shared = this.shared;
    if (shared.fitter?.schedule !== schedule) {
      shared.fitter = undefined; // the old grid is let go before the new one is made
      shared.fitter = { schedule, fit: noiseModelFitter(schedule.x, schedule.steps, axes) };
    }
    const models = shared.fitter.fit(missing.map((i) => series[i]));
    missing.forEach((i, j) => {
      const model = models[j]!;
      out[i] = model;
      this.fitted++;
      if (!this.keepFits) return;
      const e = Float64Array.from(series[i]!), h = hashOf(e);
      const list = schedule.fits.get(h);
      if (list) list.push({ e, model: { ...model } });
      else schedule.fits.set(h, [{ e, model: { ...model } }]);
    });
    return out;
  }

  private scheduleOf(x: readonly Float64Array[], steps: ArrayLike<number>, axes: readonly TimeAxis[]): Schedule {
    const axesKey = axes.join(',');
    const times = Float64Array.from(steps);
    const found = this.shared.schedules.find((s) => s.axes === axesKey && sameBits(s.steps, times) && s.x.length === x.length &&
      s.x.every((col, j) => sameBits(col, x[j])));
    if (found) return found;
    const schedule: Schedule = { x: x.map((col) => Float64Array.from(col)), steps: times, axes: axesKey, fits: new Map() };
    this.shared.schedules.push(schedule);
    return schedule;
  }
}

/** The arrays hold the same bits (so -0 and 0 differ, and a NaN equals the same NaN). */
function sameBits(a: Float64Array, b: Float64Array): boolean {
  if (a.length !== b.length) return false;
  const x = wordsOf(a), y = wordsOf(b);
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}

const wordsOf = (a: Float64Array) => new Uint32Array(a.buffer, a.byteOffset, 2 * a.length);

/** FNV-1a over the series' bits: finds the candidates, which sameBits then checks. */
function hashOf(a: Float64Array): number {
  const w = wordsOf(a);
  let h = 0x811c9dc5;
  for (let i = 0; i < w.length; i++) h = Math.imul(h ^ w[i], 0x01000193);
  return h >>> 0;
}
