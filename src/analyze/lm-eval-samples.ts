// lm-evaluation-harness 0.4's per-example results (--log_samples): `samples_<task>_<date_id>.jsonl`
// beside `results_<date_id>.json` in the model's folder, written with the same date_id
// (lm_eval/_cli/run.py saves the aggregated results, then each task's samples;
// lm_eval/loggers/evaluation_tracker.py, save_results_samples; lm-eval 0.4.13). One JSON object a
// line per example and filter (lm_eval/evaluator.py under log_samples): "doc_id", "filter" ("none"
// when the task has none), "metrics" (the names computed), and each metric's value for this example,
// e.g. "acc": 1.0. A score `acc` is filter none's "acc"; `exact_match,strict-match` is the lines of
// filter strict-match. As right/wrong results (example-results.ts) only where every value is 0 or 1
// (or true / false): a share of right answers, whose mean is the task's score.
import { readFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { UserError, unreadable } from '../errors.ts';
import { parseJsonLines } from '../json-text.ts';
import type { ExampleResult, ExampleResultSource } from './example-results.ts';

/** lm-eval's date_id: datetime.now().isoformat() with ":" replaced by "-". */
const DATE_ID = String.raw`\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d(?:\.\d+)?`;
const SAMPLES_FILE = new RegExp(`^samples_(.+)_(${DATE_ID})\\.jsonl$`);
const RESULTS_FILE = new RegExp(`^results_(${DATE_ID})\\.json$`);

/** Whether a file name is an lm-eval samples file (the folder reader lists these beside the results). */
export function isSamplesFile(name: string): boolean {
  return SAMPLES_FILE.test(name);
}

/** The samples files of one evaluation: a run's checkpoint, task -> file. */
export interface SamplesAt { run: string; step: number; files: Map<string, string> }

/**
 * Pairs each samples file with the results file it was written with (same folder, same date_id),
 * whose run and step `placeOf` gives; files without one are named in `leftOut`.
 */
export function pairSamplesFiles(
  samples: readonly string[], placeOf: ReadonlyMap<string, { run: string; step: number }>,
): { evaluations: SamplesAt[]; leftOut: string[] } {
  const byResults = new Map<string, SamplesAt>();
  const orphans: string[] = [];
  const resultsOf = new Map<string, string>();
  for (const file of placeOf.keys()) {
    const m = RESULTS_FILE.exec(basename(file));
    if (m) resultsOf.set(`${dirname(file)}\u0000${m[1]}`, file);
  }
  for (const file of samples) {
    const m = SAMPLES_FILE.exec(basename(file))!;
    const results = resultsOf.get(`${dirname(file)}\u0000${m[2]}`);
    if (results === undefined) { orphans.push(file); continue; }
    let at = byResults.get(results);
    if (at === undefined) byResults.set(results, at = { ...placeOf.get(results)!, files: new Map() });
    at.files.set(m[1], file);
  }
  const leftOut = orphans.length
    ? [`${orphans.length} lm-eval samples file(s) not read: no results_<date_id>.json of the same evaluation beside them ` +
      `(${orphans.slice(0, 3).join(', ')}${orphans.length > 3 ? ', ...' : ''})`]
    : [];
  return { evaluations: [...byResults.values()], leftOut };
}

/** The per-example results the samples files hold, read when the analysis asks for a run's test set (the control's). */
export function lmEvalExampleResults(evaluations: readonly SamplesAt[]): ExampleResultSource {
  return (run, testSet, metric) => {
    const files = evaluations.filter((e) => e.run === run && e.files.has(testSet)).sort((a, b) => a.step - b.step);
    if (files.length === 0) return undefined;
    const comma = metric.indexOf(',');
    const [name, filter] = comma < 0 ? [metric, 'none'] : [metric.slice(0, comma), metric.slice(comma + 1)];
    const out: ExampleResult[] = [];
    for (const e of files) {
      const step = readSamples(e.files.get(testSet)!, name, filter);
      if (step === undefined) return undefined;
      for (const [docId, right] of step) out.push({ step: e.step, exampleId: String(docId), right });
    }
    return out;
  };
}

/** One samples file's results for a metric and filter, by doc_id; undefined when a value is not 0 or 1. */
function readSamples(file: string, metric: string, filter: string): [number, boolean][] | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw unreadable(file, err);
  }
  const out: [number, boolean][] = [];
  for (const { line, values: sample } of parseJsonLines(text, file)) {
    if ((sample.filter ?? 'none') !== filter || !(metric in sample)) continue;
    const value = sample[metric], docId = sample.doc_id;
    if (typeof docId !== 'number') throw new UserError(`${file}, line ${line}: field "doc_id": expected a number`, { file, line, field: 'doc_id' });
    if (value === 1 || value === true) out.push([docId, true]);
    else if (value === 0 || value === false) out.push([docId, false]);
    else return undefined;
  }
  return out.sort((a, b) => a[0] - b[0]);
}
