// The noise-model fits a default analysis makes, written out so that a Python process can make the
// same fits (bench/noise_fit_reference.py): the lower bound of a Python default analysis's time
// that bench/analyze-scale.ts measures (GENSTUDY_ANALYZE_SCALE_FITS=1). The fits are most of the
// default's CPU (about 80% at 30 x 20 x 200, profiled), and a Python twin of the default would make
// every one of them, so a numpy process making only these fits is faster than that twin.
//
// `node --import tsx bench/noise-fit-workload.ts <scores.csv> <out-stem> [analyze flags]` runs
// `genstudy analyze <scores.csv> --control in-domain --format json` in this process, with every
// NoiseFitCache.fit call (stats/noise-fit-cache.ts, the only way the analysis fits the model) seen:
// each series the cache fits (not one it serves from its store) is recorded with its regression
// columns, checkpoints, axes and the model genstudy fitted. <out-stem>.json indexes the calls;
// <out-stem>.bin holds their numbers as little-endian float64.
import { closeSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { DEFAULT_AXES, NoiseFitCache } from '../src/stats/noise-fit-cache.ts';
import type { NoiseModel, TimeAxis } from '../src/stats/noise-model.ts';
import { main } from '../src/cli/main.ts';

/** One call's fitted series: offsets (in float64s) into the .bin file. */
export interface FitCall { n: number; p: number; axes: TimeAxis[]; steps: number; x: number; series: number; count: number; models: number }

/** The .json file: the calls, and the models' width (five numbers each: theta, nugget, the axis' index in `axes`, phi, logLik). */
export interface FitWorkload { model_width: number; calls: FitCall[] }

const MODEL_WIDTH = 5;

export async function recordFits(csv: string, stem: string, flags: readonly string[] = []): Promise<{ calls: number; fits: number }> {
  const fd = openSync(`${stem}.bin`, 'w');
  let offset = 0;
  const put = (values: ArrayLike<number>): number => {
    const at = offset;
    const buf = Float64Array.from(values);
    writeSync(fd, new Uint8Array(buf.buffer));
    offset += buf.length;
    return at;
  };
  const calls: FitCall[] = [];
  const original = NoiseFitCache.prototype.fit;
  // each series on its own, so that the cache's `fitted` count says which ones it fitted (a fit does
  // not depend on the other series of its call: noise-model-batch.ts)
  NoiseFitCache.prototype.fit = function recorded(this: NoiseFitCache, x, steps, series, axes?: readonly TimeAxis[]) {
    const used = axes ?? DEFAULT_AXES;
    const fitted: { e: Float64Array; model: NoiseModel }[] = [];
    const out = series.map((e) => {
      if (!e) return null;
      const before = this.fitted;
      const model = original.call(this, x, steps, [e], used)[0];
      if (this.fitted > before && model) fitted.push({ e, model });
      return model;
    });
    if (fitted.length) {
      const n = steps.length;
      const models = fitted.flatMap(({ model }) => [model.theta, model.nugget, used.indexOf(model.axis), model.phi, model.logLik]);
      calls.push({
        n, p: x.length, axes: [...used], steps: put(Array.from(steps)), x: put(x.flatMap((col) => Array.from(col))),
        series: put(fitted.flatMap(({ e }) => Array.from(e))), count: fitted.length, models: put(models),
      });
    }
    return out;
  };
  try {
    const code = await main(['analyze', csv, '--control', 'in-domain', '--format', 'json', '--out-file', `${stem}.analysis.json`, ...flags]);
    if (code !== 0) throw new Error(`genstudy analyze exited ${code}`);
  } finally {
    NoiseFitCache.prototype.fit = original;
    closeSync(fd);
  }
  const workload: FitWorkload = { model_width: MODEL_WIDTH, calls };
  writeFileSync(`${stem}.json`, JSON.stringify(workload));
  return { calls: calls.length, fits: calls.reduce((s, c) => s + c.count, 0) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [csv, stem, ...flags] = process.argv.slice(2);
  if (!csv || !stem) {
    console.error('usage: node --import tsx bench/noise-fit-workload.ts <scores.csv> <out-stem> [analyze flags]');
    process.exit(2);
  }
  const { calls, fits } = await recordFits(csv, stem, flags);
  console.error(`recorded ${fits} fits in ${calls} calls: ${stem}.json, ${stem}.bin`);
}
