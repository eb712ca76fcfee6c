// How often analyze declares a relation on studies shaped like real fine-tuning runs
// (bench/realistic-runs.ts: binomial scores, saturating ID curves, curved ID -> OOD maps, smooth
// drifts, real checkpoint schedules): `npm run bench -- realistic`.
//   REALISTIC_STUDIES  studies per cell (default 50)
//   REALISTIC_CELLS    `quick` (default), `all`, or key parts (bench/realistic-cells.ts), e.g. `log+convex,n250`; `=key` for one cell
//   REALISTIC_OPTIONS  analysis options as JSON, e.g. '{"residualiser":"spline"}' or '{"regressOn":"log-step"}'
//   REALISTIC_SEED     (default 1); the same environment gives the same table
//   REALISTIC_TRUE_CONTROL=1  also analyse each study with the control replaced by the true ID progress
//                      (withTrueControl: what is left once the control's noise is gone) and with its noise
//                      unknown (withoutControlNoise: what no correction gives); four more columns
// The test set column: `fresh` draws at every checkpoint, or `fixed rho` (the same examples, persisting);
// `examples`: the control's per-example results known, its errors' covariance estimated from them.
// Every study goes through analyzeRuns with the defaults and { control: 'id', robustness: false,
// ...options }: the per-run calibration is on (200 simulated pairs per run, about 2 s a run), since
// the pooling scales each run's variance by what it measures; '{"calibration":0}' is the
// uncalibrated pooling, 40 times faster. Per cell: the % of studies whose tested pair (ood-a, ood-b) is declared
// *generalises* / *depends on the model*; with 8 OOD sets (28 pairs) the % with ANY pair so
// declared (family-wise, as a reader of the study would meet it); the oracle's verdict on the tested
// pair from the true deviations, and the measured oracle's from the deviations as the scores measure them
// (bench/realistic-oracle.ts: the ceilings on power); the mean of the runs' r, the
// share of run-level p < 0.05 (unadjusted) and the runs' mean z^2 / v (z = atanh r, v the variance the run's
// test states: 1 when it is right, above 1 when the test is liberal) over the same pairs; wall and CPU seconds.
// The key-value lines also give, over runs corrected by SIMEX, the share of pairs it left uncorrected and the
// mean r of those and of the others (`_simex_left_uncorrected_share`, `_mean_r`; `_simex_corrected_mean_r`).
import { analyzeRuns, DEFAULT_OPTIONS, type AnalysisResult, type AnalyzeOptions } from '../src/analyze/analysis.ts';
import { clippedFisherZ, fisherZVariance } from '../src/analyze/fisher-z.ts';
import { hashString } from '../src/seeded-random.ts';
import { cellKey, selectCells } from './realistic-cells.ts';
import { measuredOracleVerdict, oracleVerdict } from './realistic-oracle.ts';
import {
  CONTROL, simulateStudy, TESTED_PAIR, withoutControlNoise, withTrueControl, type SimulatedRun, type StudySpec,
} from './realistic-runs.ts';

const ALPHA = 0.05;

/** A running mean of the runs' r. */
interface MeanR { rSum: number; rCount: number }
/** How many studies had some counted pair declared each word. */
interface Verdicts { generalises: number; depends: number }

interface Tally extends MeanR, Verdicts {
  studies: number; oracleGeneralises: number; oracleDepends: number;
  measuredGeneralises: number; measuredDepends: number;
  rejected: number; tested: number; zRatioSum: number; zCount: number;
  /** The same studies with the true control (REALISTIC_TRUE_CONTROL): verdict counts and the runs' r. */
  exact: Verdicts & MeanR;
  /** The runs' r with the control's noise unknown (REALISTIC_TRUE_CONTROL). */
  uncorrected: MeanR;
  /** SIMEX runs' pairs: those it left uncorrected (its correction would take a variance below a fifth) and the rest. */
  simexLeft: MeanR;
  simexCorrected: MeanR;
}

const noR = (): MeanR => ({ rSum: 0, rCount: 0 });
const addR = (into: MeanR, r: number) => { into.rSum += r; into.rCount++; };

const isCounted = (spec: StudySpec, a: string, b: string): boolean =>
  spec.oodSets > 2 || (a === TESTED_PAIR[0] && b === TESTED_PAIR[1]) || (a === TESTED_PAIR[1] && b === TESTED_PAIR[0]);

/** Counts the study's verdicts over its counted pairs into `into`. */
function countVerdicts(into: Verdicts, spec: StudySpec, result: AnalysisResult): void {
  const pairs = result.meta.pairs.filter((p) => isCounted(spec, p.a, p.b));
  if (pairs.some((p) => p.verdict === 'generalises')) into.generalises++;
  if (pairs.some((p) => p.verdict === 'depends on the model')) into.depends++;
}

function meanRunR(spec: StudySpec, result: AnalysisResult, into: MeanR): void {
  for (const run of result.runs) for (const p of run.pairs) if (isCounted(spec, p.a, p.b) && p.r !== null) addR(into, p.r);
}

function tallyExact(t: Tally, spec: StudySpec, result: AnalysisResult): void {
  countVerdicts(t.exact, spec, result);
  meanRunR(spec, result, t.exact);
}

function tallyStudy(t: Tally, spec: StudySpec, result: AnalysisResult, runs: readonly SimulatedRun[]): void {
  t.studies++;
  const oracle = oracleVerdict(runs);
  if (oracle === 'generalises') t.oracleGeneralises++;
  if (oracle === 'depends on the model') t.oracleDepends++;
  const measured = measuredOracleVerdict(runs, spec);
  if (measured === 'generalises') t.measuredGeneralises++;
  if (measured === 'depends on the model') t.measuredDepends++;
  countVerdicts(t, spec, result);
  for (const run of result.runs) {
    for (const p of run.pairs) {
      if (!isCounted(spec, p.a, p.b)) continue;
      t.tested++;
      if (p.r !== null) addR(t, p.r);
      if (p.r !== null && p.df > 1) { t.zRatioSum += clippedFisherZ(p.r) ** 2 / fisherZVariance(p); t.zCount++; }
      if (p.r !== null && run.control_noise?.correction === 'simex') addR(p.r_simex === undefined ? t.simexLeft : t.simexCorrected, p.r);
      if (p.p !== null && p.p < ALPHA) t.rejected++;
    }
  }
}

function truthLabel(spec: StudySpec): string {
  if (spec.truth === 'common') return 'common r 0.5';
  if (spec.truth === 'by-model') return 'by-model ±0.6';
  return 'null';
}

function optionsFromEnv(): Partial<AnalyzeOptions> {
  const text = process.env.REALISTIC_OPTIONS;
  return text ? (JSON.parse(text) as Partial<AnalyzeOptions>) : {};
}

export async function benchRealistic(): Promise<Record<string, number | string>> {
  const studies = Number(process.env.REALISTIC_STUDIES ?? 50);
  const seed = Number(process.env.REALISTIC_SEED ?? 1);
  const cells = selectCells(process.env.REALISTIC_CELLS);
  const extra = optionsFromEnv();
  const exact = process.env.REALISTIC_TRUE_CONTROL === '1';
  const opts: AnalyzeOptions = { ...DEFAULT_OPTIONS, control: CONTROL, robustness: false, ...extra };
  const pct = (x: number, of: number) => (of ? `${((100 * x) / of).toFixed(1)}%` : '-');
  const lines = [
    `Realistic runs: ${studies} studies per cell, seed ${seed}, options ${JSON.stringify(extra)}; ` +
      `per-run p < ${ALPHA} unadjusted; 28 pairs: any pair (family-wise).`,
    '',
    '| schedule | ID -> OOD | n | ID | test set | models | pairs | truth | generalises | depends on the model ' +
      '| oracle: generalises | oracle: depends ' +
      '| measured oracle: generalises | measured oracle: depends | mean r | runs p < 0.05 | runs z²/v ' +
      `${exact ? '| true control: generalises | true control: depends | true control: mean r | uncorrected: mean r ' : ''}| wall s | CPU s |`,
    `|${'---|'.repeat(exact ? 23 : 19)}`,
  ];
  const out: Record<string, number | string> = { studies_per_cell: studies, cells: cells.length };
  const wall0 = performance.now(), cpu0 = process.cpuUsage();
  for (const spec of cells) {
    const key = cellKey(spec);
    const t: Tally = {
      studies: 0, generalises: 0, depends: 0, oracleGeneralises: 0, oracleDepends: 0, measuredGeneralises: 0, measuredDepends: 0,
      ...noR(), rejected: 0, tested: 0, zRatioSum: 0, zCount: 0, exact: { generalises: 0, depends: 0, ...noR() },
      uncorrected: noR(), simexLeft: noR(), simexCorrected: noR(),
    };
    const wall = performance.now(), cpu = process.cpuUsage();
    for (let i = 0; i < studies; i++) {
      const runs = simulateStudy(spec, hashString(`${seed}/${key}/${i}`));
      tallyStudy(t, spec, analyzeRuns(runs.map((r) => r.series), opts), runs);
      if (exact) {
        tallyExact(t, spec, analyzeRuns(runs.map(withTrueControl), opts));
        meanRunR(spec, analyzeRuns(runs.map(withoutControlNoise), opts), t.uncorrected);
      }
    }
    const used = process.cpuUsage(cpu);
    const wallS = (performance.now() - wall) / 1000, cpuS = (used.user + used.system) / 1e6;
    const pairs = (spec.oodSets * (spec.oodSets - 1)) / 2;
    const meanR = t.rCount ? (t.rSum / t.rCount).toFixed(3) : '-';
    const zRatio = t.zCount ? (t.zRatioSum / t.zCount).toFixed(2) : '-';
    const testSet = (spec.persistence ? `fixed ${spec.persistence}` : 'fresh') + (spec.examples ? ', examples' : '');
    lines.push(`| ${spec.schedule} | ${spec.shape} | ${spec.n} | ${spec.idNoisy ? 'noisy' : 'exact'} | ${testSet} | ${spec.models} | ${pairs} ` +
      `| ${truthLabel(spec)} | ${pct(t.generalises, t.studies)} | ${pct(t.depends, t.studies)} ` +
      `| ${pct(t.oracleGeneralises, t.studies)} | ${pct(t.oracleDepends, t.studies)} ` +
      `| ${pct(t.measuredGeneralises, t.studies)} | ${pct(t.measuredDepends, t.studies)} | ${meanR} ` +
      `| ${pct(t.rejected, t.tested)} | ${zRatio} ` +
      (exact ? `| ${pct(t.exact.generalises, t.studies)} | ${pct(t.exact.depends, t.studies)} | ${(t.exact.rSum / t.exact.rCount).toFixed(3)} ` +
        `| ${(t.uncorrected.rSum / t.uncorrected.rCount).toFixed(3)} ` : '') +
      `| ${wallS.toFixed(1)} | ${cpuS.toFixed(1)} |`);
    out[`${key}_generalises`] = t.generalises / t.studies;
    out[`${key}_depends`] = t.depends / t.studies;
    out[`${key}_oracle_generalises`] = t.oracleGeneralises / t.studies;
    out[`${key}_measured_oracle_generalises`] = t.measuredGeneralises / t.studies;
    out[`${key}_measured_oracle_depends`] = t.measuredDepends / t.studies;
    out[`${key}_run_rejections`] = t.tested ? t.rejected / t.tested : NaN;
    out[`${key}_run_variance_ratio`] = t.zCount ? t.zRatioSum / t.zCount : NaN;
    // where the echo is left: SIMEX's pairs left uncorrected keep the whole of it
    const simexPairs = t.simexLeft.rCount + t.simexCorrected.rCount;
    if (simexPairs) {
      out[`${key}_simex_left_uncorrected_share`] = t.simexLeft.rCount / simexPairs;
      out[`${key}_simex_left_uncorrected_mean_r`] = t.simexLeft.rCount ? t.simexLeft.rSum / t.simexLeft.rCount : NaN;
      out[`${key}_simex_corrected_mean_r`] = t.simexCorrected.rCount ? t.simexCorrected.rSum / t.simexCorrected.rCount : NaN;
    }
    if (exact) {
      out[`${key}_true_control_generalises`] = t.exact.generalises / t.studies;
      out[`${key}_true_control_depends`] = t.exact.depends / t.studies;
      out[`${key}_true_control_mean_r`] = t.exact.rSum / t.exact.rCount;
      out[`${key}_uncorrected_mean_r`] = t.uncorrected.rSum / t.uncorrected.rCount;
    }
  }
  const used = process.cpuUsage(cpu0);
  out.wall_seconds = (performance.now() - wall0) / 1000;
  out.cpu_seconds = (used.user + used.system) / 1e6;
  lines.push('', `(${(out.wall_seconds as number).toFixed(0)} s wall, ${(out.cpu_seconds as number).toFixed(0)} s CPU)`);
  console.log(lines.join('\n'));
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchRealistic();
}
