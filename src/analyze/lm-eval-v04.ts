// lm-evaluation-harness 0.4 output: `<output_path>/<model_name_sanitized>/results_<timestamp>.json`
// (lm_eval/loggers/evaluation_tracker.py, save_results_aggregated, at commit 034ab03), where the
// folder is the model name with every run of `"<>:/|\?*[]` replaced by "__" (lm_eval/utils.py,
// sanitize_model_name, at commit 003e585): a local checkpoint `/scratch/me/run/checkpoint-500`
// becomes `__scratch__me__run__checkpoint-500`. Scores are `results.<task>["<metric>,<filter>"]`
// (filter "none" when the task has none) beside `"alias"`; groups (e.g. mmlu) appear in
// "results" (or, before 0.4.3, in "groups") with their subtasks listed in "group_subtasks". A
// score's standard error is `"<metric>_stderr,<filter>"` beside it ("N/A" when lm-eval could not
// compute one), and a task's examples are `"n-samples": {task: {"original", "effective"}}`, where
// effective is what was scored (fewer than original under --limit). Every score is a
// "<metric>,<filter>" key (lm_eval/evaluator_utils.py, _compute_task_aggregations, since 0.4.0); the
// keys without a filter are lm-eval's own bookkeeping, which 0.4.12 and later write beside the scores
// (lm_eval/result_schema.py, _TaskMetrics: "name", "alias" and "sample_len", the examples scored;
// groups add "sample_count", lm_eval/api/group.py aggregate; all at commit 4e7e0d4): never scores.

/** A value as the file gives it (checked by the reader, which knows the file) and the field it came from. */
export interface LmEvalField { value: unknown; key: string }

export interface LmEvalFile {
  version: '0.3' | '0.4';
  scores: { testSet: string; metric: string; value: number; key: string; stderr?: LmEvalField; n?: LmEvalField }[];
  /** The fields of scores whose value is null (Python's NaN and infinities read as null: parsePythonJson). */
  missing: string[];
  /** Fields in "results" that are not scores and were left out (sample_len, a score's key holding text), by key and field. */
  notScores: { key: string; field: string }[];
  modelArgs?: string;
  /** 0.4: the model as named before its folder name was sanitised. */
  modelName?: string;
  /** Group -> its subtasks. */
  groups: Map<string, string[]>;
}

type Doc = {
  results: Record<string, unknown>;
  groups?: Record<string, unknown>;
  group_subtasks?: Record<string, unknown>;
  config?: { model_args?: unknown };
  model_name?: unknown;
  'n-samples'?: unknown;
};

/** The task's display labels lm-eval writes beside its scores (result_schema.py). */
const LABELS = ['alias', 'name'];

/** 0.4 wrote these; 0.3 never did (its metric keys have no ",filter" either). */
export function isLmEval04(doc: Record<string, unknown>): boolean {
  if (['configs', 'group_subtasks', 'n-shot', 'lm_eval_version', 'model_name_sanitized'].some((k) => k in doc)) return true;
  return Object.values(doc.results as Record<string, unknown>).some(
    (m) => typeof m === 'object' && m !== null && Object.keys(m).some((k) => k.includes(',') || k === 'alias'),
  );
}

export function parseLmEval04(doc: Doc): LmEvalFile {
  const scores: LmEvalFile['scores'] = [];
  const missing: string[] = [];
  const notScores: LmEvalFile['notScores'] = [];
  const seen = new Set<string>();
  for (const [section, entries] of [['results', doc.results], ['groups', doc.groups ?? {}]] as const) {
    for (const [task, metrics] of Object.entries(entries)) {
      if (typeof metrics !== 'object' || metrics === null || seen.has(task)) continue;
      seen.add(task);
      for (const [key, value] of Object.entries(metrics as Record<string, unknown>)) {
        const field = `${section}.${task}["${key}"]`;
        const comma = key.indexOf(',');
        if (comma < 0) {
          // the task's labels say nothing a reader could take for a score; anything else unfiltered is named
          if (!(LABELS.includes(key) && typeof value === 'string')) notScores.push({ key, field });
          continue;
        }
        const [metric, filter] = [key.slice(0, comma), key.slice(comma + 1)];
        if (metric.endsWith('_stderr')) continue;
        if (value === null) missing.push(field);
        else if (typeof value !== 'number') notScores.push({ key, field });
        if (typeof value !== 'number') continue;
        const stderrKey = `${metric}_stderr,${filter}`;
        const stderr = (metrics as Record<string, unknown>)[stderrKey];
        const n = sampleCount(doc['n-samples'], task);
        scores.push({ testSet: task, metric: filter === 'none' ? metric : `${metric},${filter}`, value,
          key: field, ...(n === undefined ? {} : { n }),
          ...(stderr === undefined ? {} : { stderr: { value: stderr, key: `${section}.${task}["${stderrKey}"]` } }) });
      }
    }
  }
  const groups = new Map<string, string[]>();
  for (const [group, subtasks] of Object.entries(doc.group_subtasks ?? {})) {
    if (Array.isArray(subtasks) && subtasks.length > 0) groups.set(group, subtasks.map(String));
  }
  return {
    version: '0.4',
    scores,
    missing,
    notScores,
    modelArgs: typeof doc.config?.model_args === 'string' ? doc.config.model_args : undefined,
    modelName: typeof doc.model_name === 'string' && doc.model_name !== '' ? doc.model_name : undefined,
    groups,
  };
}

/** A task's "n-samples" entry: effective, else original; undefined when the file has neither (groups have none). */
function sampleCount(nSamples: unknown, task: string): LmEvalField | undefined {
  if (typeof nSamples !== 'object' || nSamples === null) return undefined;
  const entry = (nSamples as Record<string, unknown>)[task];
  if (typeof entry !== 'object' || entry === null) return undefined;
  for (const k of ['effective', 'original']) {
    const value = (entry as Record<string, unknown>)[k];
    if (value !== undefined && value !== null) return { value, key: `n-samples.${task}.${k}` };
  }
  return undefined;
}

/** lm_eval.utils.sanitize_model_name. */
export function sanitizeModelName(name: string): string {
  return name.replace(/["<>:/|\\?*[\]]+/g, '__');
}

/**
 * The path segments a sanitised folder name stands for: the model name when the file records it and
 * it sanitises to this folder (exact), else the folder split at "__" (a name that itself held "__"
 * is split too). A leading "/" gives an empty first segment, so the path reads back absolute.
 */
export function decodeModelFolder(folder: string, modelName: string | undefined): string[] | null {
  if (modelName !== undefined && sanitizeModelName(modelName) === folder) return modelName.split('/');
  return folder.includes('__') ? folder.split('__') : null;
}
