// How `genstudy analyze` scales with a study's size: seeded long score tables at runs x
// OOD sets x checkpoints from 3 x 7 x 25 to 300 x 20 x 200 and 30 x 20 x 1000, Pythia's uneven
// schedule at its real size (16 x 30 x 154) and other uneven ones, each analysed end to end by the
// CLI in a child process, with the defaults and with the cheapest options, against a numpy/scipy
// process doing the cheapest test on the same CSV (bench/analyze_scale_reference.py, Debian's
// /usr/bin/python3 with python3-numpy, -scipy, -pandas). Each side is timed by /usr/bin/time: CPU
// seconds (user + sys) and peak resident memory. The cheapest answers are checked against Python's
// (r and p of every pair of every run), so the two sides are shown to compute the same thing.
//
// GENSTUDY_ANALYZE_SCALE picks the sizes: a comma-separated list of their names (below), `quick`
// (the default: the sizes that take seconds), `all` (the big ones take minutes each), or `growth`:
// one dimension at a time around 10 x 20 x 200 (runs 5-40, OOD sets 10-40, i.e. 45-780 pairs,
// checkpoints 100-800), with each step's growth exponent, log(CPU ratio) / log(size ratio): 1 is linear.
// GENSTUDY_ANALYZE_SCALE_KEEP=<folder> keeps each size's CSV and both JSON answers there (to compare
// two versions' answers with bench/json-diff.ts). GENSTUDY_ANALYZE_SCALE_FITS=1 adds, for the
// defaults, a lower bound of a Python default's CPU time: numpy making only the noise-model fits the
// default made (bench/noise-fit-workload.ts, bench/noise_fit_reference.py), with its fits' agreement.
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createRandom, ouInto } from '../src/stats/index.ts';
import { distIsFresh } from '../bin/dist-freshness.js';

type Schedule = 'even' | 'pythia' | 'uneven';
interface Size { name: string; runs: number; sets: number; checkpoints: number; schedule: Schedule; quick: boolean }

const size = (runs: number, sets: number, checkpoints: number, schedule: Schedule, quick: boolean): Size =>
  ({ name: `${runs}x${sets}x${checkpoints}${schedule === 'even' ? '' : `-${schedule}`}`, runs, sets, checkpoints, schedule, quick });

/** The issue's sizes (runs x OOD sets x checkpoints); `quick` marks those that finish in seconds. */
export const SIZES: Size[] = [
  size(3, 7, 25, 'even', true),
  size(30, 20, 200, 'even', true),
  size(30, 50, 200, 'even', false),
  size(300, 20, 200, 'even', false),
  size(30, 20, 1000, 'even', false),
  size(16, 30, 154, 'pythia', true),
  size(300, 10, 20, 'uneven', false),
  size(3, 20, 200, 'uneven', true),
  size(3, 5, 100, 'uneven', true),
  size(3, 5, 200, 'uneven', true),
  size(3, 5, 400, 'uneven', false),
  size(3, 5, 1000, 'uneven', false),
];

/** The growth series: each dimension doubled from the same centre, the others held. */
export const GROWTH: { dimension: 'runs' | 'pairs' | 'checkpoints'; sizes: Size[] }[] = [
  { dimension: 'runs', sizes: [5, 10, 20, 40].map((runs) => size(runs, 20, 200, 'even', false)) },
  { dimension: 'pairs', sizes: [10, 20, 40].map((sets) => size(10, sets, 200, 'even', false)) },
  { dimension: 'checkpoints', sizes: [100, 200, 400, 800].map((c) => size(10, 20, c, 'even', false)) },
];
const pairsOf = (s: Size) => (s.sets * (s.sets - 1)) / 2;
const extent = (s: Size, dimension: (typeof GROWTH)[number]['dimension']) =>
  dimension === 'runs' ? s.runs : dimension === 'pairs' ? pairsOf(s) : s.checkpoints;

/** Pythia's checkpoints: 0, 1, 2, 4, ..., 512, 1000, then every 1000 steps to 143000 (154). */
export function pythiaSteps(): number[] {
  const steps = [0];
  for (let s = 1; s <= 512; s *= 2) steps.push(s);
  for (let s = 1000; s <= 143000; s += 1000) steps.push(s);
  return steps;
}

/** C checkpoints: log-spaced early (0, 1, 2, 4, ... up to a third of them), then evenly spaced. */
export function unevenSteps(c: number): number[] {
  const early = Math.max(2, Math.min(11, Math.floor(c / 3)));
  const steps = [0];
  for (let i = 0; steps.length < early; i++) steps.push(2 ** i);
  const last = steps[steps.length - 1], gap = 2 * last;
  while (steps.length < c) steps.push(steps[steps.length - 1] + gap);
  return steps;
}

function stepsOf(s: Size): number[] {
  if (s.schedule === 'pythia') return pythiaSteps();
  if (s.schedule === 'uneven') return unevenSteps(s.checkpoints);
  return Array.from({ length: s.checkpoints }, (_, i) => 10 * (i + 1));
}

/**
 * The long CSV (run, step, test_set, metric, value) of one size, shaped like real runs: the control
 * `in-domain` a learning curve (in log-step on uneven schedules) plus white noise; each OOD set a
 * base plus a loading on the control's true curve, a shared drift (a third of the sets +, a third -),
 * its own smooth drift (an OU process over the checkpoints) and white noise, in [0, 1].
 */
export function writeScores(file: string, s: Size, seed = 1): number {
  const random = createRandom(seed);
  const steps = stepsOf(s);
  const c = steps.length, last = steps[c - 1];
  const progress = steps.map((t) => (s.schedule === 'even' ? t / last : Math.log1p(t) / Math.log1p(last)));
  const index = Float64Array.from({ length: c }, (_, i) => i);
  const latent = new Float64Array(c), drift = new Float64Array(c);
  const fd = openSync(file, 'w');
  let rows = 0;
  try {
    writeSync(fd, 'run,step,test_set,metric,value\n');
    for (let r = 0; r < s.runs; r++) {
      const run = `run-${String(r).padStart(3, '0')}`;
      const rate = 2 + 4 * random.uniform(), top = 0.4 + 0.4 * random.uniform();
      const curve = progress.map((p) => 0.3 + top * (1 - Math.exp(-rate * p)));
      ouInto(latent, index, c / 10, random);
      const lines: string[] = [];
      const put = (set: string, values: ArrayLike<number>) => {
        for (let i = 0; i < c; i++) lines.push(`${run},${steps[i]},${set},accuracy,${Math.min(1, Math.max(0, values[i])).toFixed(6)}`);
      };
      put('in-domain', curve.map((v) => v + 0.01 * random.normal()));
      for (let k = 0; k < s.sets; k++) {
        ouInto(drift, index, c / 20, random);
        const base = 0.1 + 0.2 * random.uniform(), loading = 0.3 + 0.5 * random.uniform(), cue = [0.01, -0.01, 0][k % 3];
        put(`ood-${String(k).padStart(2, '0')}`,
          curve.map((v, i) => base + loading * v + cue * latent[i] + 0.008 * drift[i] + 0.01 * random.normal()));
      }
      writeSync(fd, lines.join('\n') + '\n');
      rows += lines.length;
    }
  } finally {
    closeSync(fd);
  }
  return rows;
}

/** The cheapest analysis: the papers' test, no calibration, no robustness table. */
export const CHEAPEST = ['--inference', 'naive', '--calibration', '0', '--no-robustness'];

interface Measured { cpuS: number; peakMb: number; out: string }

/** One command under /usr/bin/time: its CPU seconds (user + sys), peak RSS and stdout (written to `out`). */
function measure(command: string[], out: string, timeoutS: number): Measured {
  const timeFile = `${out}.time`;
  const fd = openSync(out, 'w');
  try {
    const res = spawnSync('/usr/bin/time', ['-f', '%U %S %M', '-o', timeFile, ...command], {
      stdio: ['ignore', fd, 'pipe'], encoding: 'utf8', timeout: timeoutS * 1000, maxBuffer: 64 << 20,
    });
    if (res.status !== 0) throw new Error(`${command.join(' ')} failed (${res.status ?? res.signal}): ${res.stderr.slice(-2000)}`);
  } finally {
    closeSync(fd);
  }
  const [user, sys, kb] = readFileSync(timeFile, 'utf8').trim().split('\n').pop()!.split(' ').map(Number);
  return { cpuS: user + sys, peakMb: kb / 1024, out };
}

interface JsonPair { a: string; b: string; r: number | null; p: number | null }
interface JsonRun { run: string; pairs: JsonPair[] }

/** The largest differences between the cheapest answer's r and p and Python's, over every pair of every run. */
function agreement(genstudyJson: string, pythonJson: string): { rDiff: number; pDiff: number; pairs: number } {
  const ours = (JSON.parse(readFileSync(genstudyJson, 'utf8')) as { runs: JsonRun[] }).runs;
  const theirs = JSON.parse(readFileSync(pythonJson, 'utf8')).runs as Record<string, { a: string[]; b: string[]; r: number[]; p: number[] }>;
  let rDiff = 0, pDiff = 0, pairs = 0;
  for (const run of ours) {
    const ref = theirs[run.run];
    if (!ref || ref.r.length !== run.pairs.length) throw new Error(`run ${run.run}: Python has ${ref?.r.length} pairs, genstudy ${run.pairs.length}`);
    run.pairs.forEach((p, i) => {
      if (p.a !== ref.a[i] || p.b !== ref.b[i]) throw new Error(`run ${run.run}: pair ${i} is ${p.a}/${p.b} here, ${ref.a[i]}/${ref.b[i]} in Python`);
      rDiff = Math.max(rDiff, Math.abs((p.r ?? NaN) - ref.r[i]));
      pDiff = Math.max(pDiff, Math.abs((p.p ?? NaN) - ref.p[i]));
      pairs++;
    });
  }
  return { rDiff, pDiff, pairs };
}

const python = '/usr/bin/python3', script = resolve(import.meta.dirname, 'analyze_scale_reference.py');

/**
 * A lower bound of a Python default analysis's CPU time: numpy making only the noise-model fits the
 * default makes (bench/noise-fit-workload.ts records them, bench/noise_fit_reference.py makes them),
 * with how far its fits are from genstudy's.
 */
function pythonFitsBound(s: Size, csv: string, dir: string, full: Measured, out: Record<string, number | string>): void {
  const stem = join(dir, `${s.name}.fits`);
  const record = spawnSync(process.execPath, ['--import', 'tsx', resolve(import.meta.dirname, 'noise-fit-workload.ts'), csv, stem],
    { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', maxBuffer: 64 << 20 });
  if (record.status !== 0) throw new Error(`recording the fits of ${s.name} failed: ${record.stderr.slice(-2000)}`);
  if (readFileSync(`${stem}.analysis.json`, 'utf8') !== readFileSync(full.out, 'utf8')) {
    throw new Error(`${s.name}: the analysis whose fits were recorded differs from the measured one`);
  }
  const ref = spawnSync(python, [resolve(import.meta.dirname, 'noise_fit_reference.py'), stem], { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (ref.status !== 0) throw new Error(`noise_fit_reference.py on ${s.name} failed: ${ref.stderr.slice(-2000)}`);
  const fits = JSON.parse(ref.stdout) as Record<string, number>;
  out[`${s.name}_fits`] = fits.fits;
  out[`${s.name}_python_fits_cpu_s`] = fits.fit_cpu_s;
  out[`${s.name}_default_vs_python_fits`] = fits.fit_cpu_s / full.cpuS;
  out[`${s.name}_fits_same_axis_share`] = fits.same_axis_share;
  out[`${s.name}_fits_median_rel_theta_diff`] = fits.median_rel_theta_diff;
  out[`${s.name}_fits_max_rel_theta_diff`] = fits.max_rel_theta_diff;
  out[`${s.name}_fits_max_abs_loglik_diff`] = fits.max_abs_loglik_diff;
  for (const f of ['bin', 'json', 'analysis.json']) rmSync(`${stem}.${f}`, { force: true });
}

function chosenSizes(): Size[] {
  const wanted = process.env.GENSTUDY_ANALYZE_SCALE ?? 'quick';
  if (wanted === 'all') return SIZES;
  if (wanted === 'quick') return SIZES.filter((s) => s.quick);
  const known = [...SIZES, ...GROWTH.flatMap((g) => g.sizes)];
  const named = wanted.split(',').flatMap((name) => {
    if (name.trim() === 'growth') return GROWTH.flatMap((g) => g.sizes);
    const s = known.find((x) => x.name === name.trim());
    if (!s) throw new Error(`unknown size "${name}"; known: growth, ${[...new Set(known.map((x) => x.name))].join(', ')}`);
    return [s];
  });
  return named.filter((s, i) => named.findIndex((x) => x.name === s.name) === i);
}

/** Each growth step's exponent, log(CPU ratio) / log(size ratio), for the sizes measured. */
function growthExponents(out: Record<string, number | string>): void {
  for (const { dimension, sizes } of GROWTH) {
    for (let i = 1; i < sizes.length; i++) {
      const [a, b] = [sizes[i - 1], sizes[i]];
      for (const path of ['default', 'cheapest']) {
        const ca = out[`${a.name}_${path}_cpu_s`], cb = out[`${b.name}_${path}_cpu_s`];
        if (typeof ca !== 'number' || typeof cb !== 'number') continue;
        out[`growth_${dimension}_${extent(a, dimension)}_to_${extent(b, dimension)}_${path}_exponent`] =
          Math.log(cb / ca) / Math.log(extent(b, dimension) / extent(a, dimension));
      }
    }
  }
}

export async function benchAnalyzeScale(): Promise<Record<string, number | string>> {
  const keep = process.env.GENSTUDY_ANALYZE_SCALE_KEEP;
  const dir = keep ? resolve(keep) : mkdtempSync(join(tmpdir(), 'genstudy-analyze-scale-'));
  mkdirSync(dir, { recursive: true });
  const bin = resolve(import.meta.dirname, '../bin/genstudy.js');
  const fitsBound = process.env.GENSTUDY_ANALYZE_SCALE_FITS === '1';
  const out: Record<string, number | string> = {};
  // what the CLI runs: dist/ only while it matches src/ (bin/dist-freshness.js), else src/ through tsx (~0.35 CPU-s more a start)
  out.cli = distIsFresh(resolve(import.meta.dirname, '..')) ? 'dist/ (built from src/ as it is)' : 'src/ through tsx (run npm run build)';
  try {
    for (const s of chosenSizes()) {
      const csv = join(dir, `${s.name}.csv`);
      out[`${s.name}_rows`] = writeScores(csv, s);
      const analyze = (extra: string[], name: string) => measure(
        [process.execPath, bin, 'analyze', csv, '--control', 'in-domain', '--format', 'json', ...extra], join(dir, `${s.name}.${name}.json`), 3600);
      // a failed analysis is a result too (its last error line), and the other sizes still run
      const attempt = (extra: string[], name: string): Measured | undefined => {
        try {
          const m = analyze(extra, name);
          out[`${s.name}_${name}_cpu_s`] = m.cpuS;
          out[`${s.name}_${name}_peak_mb`] = m.peakMb;
          return m;
        } catch (e) {
          out[`${s.name}_${name}`] = `failed: ${(e as Error).message.split('\n').find((l) => /error/i.test(l))?.trim() ?? 'see stderr'}`;
          return undefined;
        }
      };
      const full = attempt([], 'default');
      if (full && fitsBound && existsSync(python)) pythonFitsBound(s, csv, dir, full, out);
      const cheap = attempt(CHEAPEST, 'cheapest');
      if (!cheap) continue;
      if (!existsSync(python)) continue;
      const ref = measure([python, script, csv], join(dir, `${s.name}.python-naive.json`), 3600);
      out[`${s.name}_python_naive_cpu_s`] = ref.cpuS;
      out[`${s.name}_python_naive_peak_mb`] = ref.peakMb;
      out[`${s.name}_cheapest_speed_vs_python`] = ref.cpuS / cheap.cpuS;
      const agree = agreement(cheap.out, ref.out);
      out[`${s.name}_max_abs_r_diff`] = agree.rDiff;
      out[`${s.name}_max_abs_p_diff`] = agree.pDiff;
    }
  } finally {
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
  growthExponents(out);
  return out;
}
