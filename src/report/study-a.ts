// Study A's question for the report: per run, partial correlations between OOD test sets across
// checkpoints with the in-domain (control) score regressed out, and their sign agreement across
// runs. Unlike `genstudy analyze`, a run that cannot be analysed (a study-B base run with one
// checkpoint, a run without the control set) is listed with the reason instead of stopping the
// report, since one store often holds runs of both studies.
import { UserError } from '../errors.ts';
import {
  analyzeRuns, DEFAULT_OPTIONS, emptyAnalysis, runProblem, type AnalysisProgress, type AnalysisResult, type AnalyzeOptions,
} from '../analyze/analysis.ts';
import { buildRunSeries, runAttributes, type RunSeries } from '../analyze/run-series.ts';
import { attachErrorCovariance } from '../analyze/error-covariance.ts';
import type { ScoreRow } from '../analyze/score-row.ts';
import { metricForTestSet, metricsByTestSet, type ReportData } from './report-data.ts';
import { knownNamesText } from '../closest-name.ts';

/** Run attribute naming the in-domain test set, used when no control is given. */
export const CONTROL_ATTRIBUTE = 'control_test_set';

export interface StudyA {
  /** Null when no control test set was given or recorded: then there is no analysis. */
  control: string | null;
  metric: string | null;
  options: AnalyzeOptions | null;
  analysis: AnalysisResult;
  series: RunSeries[];
  skipped: { run: string; reason: string }[];
  /** Why there is no study-A analysis, when there is none. */
  note?: string;
  /** What the analysis could not use from the input's per-example results (error-covariance.ts). */
  notes?: string[];
}

export function studyA(data: ReportData,
  opts: {
    control?: string; metric?: string; analysis?: Partial<Omit<AnalyzeOptions, 'control'>>; result?: AnalysisResult; progress?: AnalysisProgress;
    /** Examples behind every score that gives neither its own n nor a stderr. */
    sampleSize?: number;
  }): StudyA {
  const empty = (note: string, control: string | null = null, metric: string | null = null): StudyA => ({
    control, metric, options: null, analysis: emptyAnalysis({ ...DEFAULT_OPTIONS, control: control ?? '' }), series: [], skipped: [], note,
  });
  const control = opts.control ?? recordedControl(data);
  if (control === null) {
    return empty(`No control (in-domain) test set: pass --control SET, or record it as the run attribute "${CONTROL_ATTRIBUTE}".`);
  }
  const metrics = metricsByTestSet(data.scores);
  const controlMetrics = metrics.get(control);
  if (!controlMetrics) {
    throw new UserError(`${data.storePath}: no scores for the control test set "${control}" ${knownNamesText(control, [...metrics.keys()].sort())}`);
  }
  if (opts.metric !== undefined && !controlMetrics.includes(opts.metric)) {
    throw new UserError(`${data.storePath}: the control test set "${control}" has no scores for metric "${opts.metric}" (it has: ` +
      `${controlMetrics.join(', ')})`);
  }
  const spec = data.testSets.find((t) => t.id === control)?.spec;
  const metric = metricForTestSet(controlMetrics, spec, opts.metric);
  const options: AnalyzeOptions = { ...DEFAULT_OPTIONS, ...opts.analysis, control };

  const attributes = new Map(data.runs.map((r) => [r.id, runAttributes(r)]));
  // a stored n of 0 is a score read from another input that did not say its n
  const rows: ScoreRow[] = data.scores.filter((s) => s.metric === metric).map((s) => ({
    run: s.run, step: s.step, testSet: s.testSet, metric: s.metric, value: s.value,
    attributes: attributes.get(s.run) ?? {}, origin: `${data.storePath} (store)`,
    ...(s.n > 0 ? { n: s.n } : {}), ...(s.stderr !== undefined ? { stderr: s.stderr } : {}),
  }));
  const series = buildRunSeries(rows, metric, { sampleSize: opts.sampleSize });
  const notes = data.exampleResults ? attachErrorCovariance(series, data.exampleResults, { metric, testSets: [control] }) : [];
  const analysable: RunSeries[] = [];
  const skipped: StudyA['skipped'] = [];
  for (const s of series) {
    if (!s.values.has(control)) {
      skipped.push({ run: s.run, reason: `no ${metric} scores for the control "${control}"` });
      continue;
    }
    const why = runProblem(s, options);
    if (why === undefined) analysable.push(s);
    else skipped.push({ run: s.run, reason: why });
  }
  for (const r of data.runs) {
    if (!series.some((s) => s.run === r.id)) skipped.push({ run: r.id, reason: `no ${metric} scores` });
  }
  // the same analysis as `genstudy analyze` (calibration and robustness included) on the runs it can take
  const analysis: AnalysisResult = opts.result ?? (analysable.length
    ? analyzeRuns(analysable, options, opts.progress)
    : emptyAnalysis(options));
  const result: StudyA = { control, metric, options, series: analysable, skipped, analysis, ...(notes.length ? { notes } : {}) };
  if (analysable.length === 0) result.note = `No run could be analysed with control "${control}" and metric "${metric}".`;
  return result;
}

function recordedControl(data: ReportData): string | null {
  const values = new Set<string>();
  for (const r of data.runs) {
    const v = r.attributes?.[CONTROL_ATTRIBUTE];
    if (typeof v === 'string' && v !== '') values.add(v);
  }
  if (values.size > 1) {
    throw new UserError(`${data.storePath}: runs record different "${CONTROL_ATTRIBUTE}" values (${[...values].sort().join(', ')}); ` +
      `choose one with --control`);
  }
  return values.size === 1 ? [...values][0] : null;
}
