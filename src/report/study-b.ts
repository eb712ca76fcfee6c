// Study B's matrices (Yang et al., NAACL 2024): training task x test set x method (base model with
// k-shot ICL, FT, FTICL), each cell the final score and its difference from the base model, and
// each test set's role for that training task (in-domain, cross-domain, cross-task).
//
// How a store says what a run and a test set are (the names `genstudy run` writes):
//   runs.method                       'base' | 'ft' | 'fticl' (case-insensitive; the column, else
//                                     attributes.method). Runs with other methods are not study B.
//   runs.model                        the base model; deltas compare runs of the same model.
//   runs.attributes.training_task     the task fine-tuned on (e.g. 'sentiment'); needed by ft / fticl.
//   runs.attributes.train_size        optional: training examples; a separate matrix row per size.
//   runs.attributes.shots             optional: k, the demonstrations in each prompt (ICL at test
//                                     time for base, prepended in training for fticl); missing = 0.
//   test_sets.spec.task               the task a test set belongs to (e.g. 'sentiment').
//   test_sets.spec.domain             'in-domain' | 'cross-domain': relative to the training set of
//                                     its task (study B has one training set per task).
//   runs.attributes.test_set_roles    optional override, per run: { "<test set>": role }, for stores
//                                     where one task has several training sets.
// A test set's role for training task T: the run's override if given; else 'cross-task' when its
// spec.task differs from T; else its spec.domain; else unknown (shown blank).
// A run's score on a test set is its last checkpoint's (highest step with that set scored), with the
// test set's metric (spec.metric, else the only one, else accuracy / acc, else --metric). Several
// runs in one cell (seeds) are averaged. The base score for a cell is the mean of the same model's
// base runs with the same shots; when none has them and the model has base runs of one shots value
// only, those; otherwise the delta is left empty with the reason.
import type { StoredScore, TestSetRecord } from '../store/result-store.ts';
import { METHOD_KINDS, type MethodKind } from '../types.ts';
import { metricForTestSet, metricsByTestSet, type ReportData, type ReportRun } from './report-data.ts';

export const STUDY_B_METHODS = METHOD_KINDS;
export type StudyBMethod = MethodKind;
export const TEST_SET_ROLES = ['in-domain', 'cross-domain', 'cross-task'] as const;
export type TestSetRole = (typeof TEST_SET_ROLES)[number];

export interface StudyBCell {
  model: string;
  method: StudyBMethod;
  /** Null for base runs, which were not trained. */
  trainingTask: string | null;
  trainSize: string | null;
  shots: number;
  testSet: string;
  testSetTask: string | null;
  role: TestSetRole | null;
  metric: string;
  score: number;
  runs: string[];
  baseScore: number | null;
  delta: number | null;
  /** Why the delta is empty, when it is. */
  deltaNote?: string;
}

export interface StudyB {
  /** True when at least one ft / fticl run has a training task and scores. */
  present: boolean;
  /** ft / fticl cells, then base cells (trainingTask null), sorted. */
  cells: StudyBCell[];
  skipped: { run: string; reason: string }[];
  models: string[];
  /** Test sets in display order: by task, then in-domain before cross-domain, then id. */
  testSets: string[];
}

interface RunInfo {
  run: ReportRun; method: StudyBMethod; model: string; trainingTask: string | null; trainSize: string | null; shots: number;
  roles: Record<string, TestSetRole>;
}

export function studyB(data: ReportData, opts: { metric?: string } = {}): StudyB {
  const skipped: StudyB['skipped'] = [];
  const infos: RunInfo[] = [];
  for (const run of data.runs) {
    const method = methodOf(run);
    if (method === null) continue;
    const attrs = run.attributes ?? {};
    const trainingTask = typeof attrs.training_task === 'string' && attrs.training_task !== '' ? attrs.training_task : null;
    if (method !== 'base' && trainingTask === null) {
      skipped.push({ run: run.id, reason: `method "${method}" without the run attribute "training_task"` });
      continue;
    }
    const shots = attrs.shots === undefined || attrs.shots === null ? 0 : Number(attrs.shots);
    if (!Number.isFinite(shots)) {
      skipped.push({ run: run.id, reason: `run attribute "shots" is ${JSON.stringify(attrs.shots)}, expected a number` });
      continue;
    }
    infos.push({
      run, method, model: run.model ?? '(no model)', trainingTask: method === 'base' ? null : trainingTask,
      trainSize: method === 'base' || attrs.train_size === undefined || attrs.train_size === null ? null : String(attrs.train_size),
      shots, roles: rolesOverride(attrs.test_set_roles),
    });
  }

  const specs = new Map(data.testSets.map((t) => [t.id, t]));
  const metrics = metricsByTestSet(data.scores);
  const metricOf = new Map([...metrics].map(([id, ms]) => [id, metricForTestSet(ms, specs.get(id)?.spec, opts.metric)]));
  // A run evaluated with in-context demonstrations (base k-shot ICL, FTICL) records which prompt
  // variant holds its scores; other runs use the report's variant.
  const variantOf = new Map(data.runs.map((r) => [r.id,
    typeof r.attributes?.prompt_variant === 'string' ? r.attributes.prompt_variant : data.promptVariant]));
  const finalScores = finalScoresByRun(data.allScores.filter((s) => (s.promptVariant ?? '') === variantOf.get(s.run)), metricOf);

  // Group runs into cells: (model, method, training task, train size, shots, test set).
  const groups = new Map<string, { info: RunInfo; testSet: string; values: number[]; runs: string[] }>();
  for (const info of infos) {
    const scores = finalScores.get(info.run.id);
    if (!scores || scores.size === 0) {
      skipped.push({ run: info.run.id, reason: 'no scores' });
      continue;
    }
    for (const [testSet, value] of scores) {
      const key = JSON.stringify([info.model, info.method, info.trainingTask, info.trainSize, info.shots, testSet]);
      let g = groups.get(key);
      if (!g) groups.set(key, (g = { info, testSet, values: [], runs: [] }));
      g.values.push(value);
      g.runs.push(info.run.id);
      // Roles given by any run of the cell apply to the cell.
      for (const [k, v] of Object.entries(info.roles)) if (!(k in g.info.roles)) g.info.roles[k] = v;
    }
  }

  const cells: StudyBCell[] = [...groups.values()].map(({ info, testSet, values, runs }) => {
    const spec = specs.get(testSet)?.spec ?? {};
    return {
      model: info.model, method: info.method, trainingTask: info.trainingTask, trainSize: info.trainSize, shots: info.shots,
      testSet, testSetTask: typeof spec.task === 'string' ? spec.task : null,
      role: info.trainingTask === null ? null : roleOf(testSet, info.trainingTask, info.roles, specs.get(testSet)),
      metric: metricOf.get(testSet)!, score: mean(values), runs: runs.sort(), baseScore: null, delta: null,
    };
  });
  const base = cells.filter((c) => c.method === 'base');
  for (const c of cells) {
    if (c.method === 'base') continue;
    const candidates = base.filter((b) => b.model === c.model && b.testSet === c.testSet);
    const sameShots = candidates.filter((b) => b.shots === c.shots);
    const shotValues = [...new Set(candidates.map((b) => b.shots))];
    const chosen = sameShots.length ? sameShots : shotValues.length === 1 ? candidates : [];
    if (chosen.length) {
      c.baseScore = mean(chosen.map((b) => b.score));
      c.delta = c.score - c.baseScore;
    } else {
      c.deltaNote = candidates.length === 0
        ? `no base run of model "${c.model}" scored on "${c.testSet}"`
        : `base runs of model "${c.model}" use k = ${shotValues.sort((a, b) => a - b).join(', ')}, none k = ${c.shots}`;
    }
  }

  const testSets = [...new Set(cells.map((c) => c.testSet))].sort((a, b) => testSetOrder(specs.get(a), specs.get(b), a, b));
  const tsIndex = new Map(testSets.map((t, i) => [t, i]));
  const methodIndex = (m: StudyBMethod) => (m === 'base' ? 9 : STUDY_B_METHODS.indexOf(m));
  cells.sort((x, y) =>
    cmp(x.model, y.model) || methodIndex(x.method) - methodIndex(y.method) || cmp(x.trainingTask ?? '', y.trainingTask ?? '') ||
    cmp(x.trainSize ?? '', y.trainSize ?? '') || x.shots - y.shots || tsIndex.get(x.testSet)! - tsIndex.get(y.testSet)!);
  return {
    present: cells.some((c) => c.method !== 'base'),
    cells, skipped, testSets, models: [...new Set(cells.map((c) => c.model))].sort(),
  };
}

export function methodOf(run: ReportRun): StudyBMethod | null {
  const raw = run.method ?? run.attributes?.method;
  if (typeof raw !== 'string') return null;
  const m = raw.trim().toLowerCase();
  return (STUDY_B_METHODS as readonly string[]).includes(m) ? (m as StudyBMethod) : null;
}

/** A row of a study-B matrix: what a fine-tuned model was trained on. */
export function rowLabel(c: Pick<StudyBCell, 'trainingTask' | 'trainSize' | 'shots' | 'method'>): string {
  let label = c.trainingTask ?? 'base';
  if (c.trainSize !== null) label += ` (${c.trainSize})`;
  if (c.shots > 0) label += ` k=${c.shots}`;
  return label;
}

function rolesOverride(raw: unknown): Record<string, TestSetRole> {
  const out: Record<string, TestSetRole> = {};
  if (raw === null || typeof raw !== 'object') return out;
  for (const [k, v] of Object.entries(raw)) if ((TEST_SET_ROLES as readonly unknown[]).includes(v)) out[k] = v as TestSetRole;
  return out;
}

function roleOf(testSet: string, trainingTask: string, override: Record<string, TestSetRole>, record: TestSetRecord | undefined): TestSetRole | null {
  if (override[testSet]) return override[testSet];
  const spec = record?.spec ?? {};
  if (typeof spec.task !== 'string') return null;
  if (spec.task !== trainingTask) return 'cross-task';
  return spec.domain === 'in-domain' || spec.domain === 'cross-domain' ? spec.domain : null;
}

function finalScoresByRun(scores: readonly StoredScore[], metricOf: Map<string, string>): Map<string, Map<string, number>> {
  const latest = new Map<string, Map<string, { step: number; value: number }>>();
  for (const s of scores) {
    if (metricOf.get(s.testSet) !== s.metric) continue;
    let byRun = latest.get(s.run);
    if (!byRun) latest.set(s.run, (byRun = new Map()));
    const prev = byRun.get(s.testSet);
    if (!prev || s.step > prev.step) byRun.set(s.testSet, { step: s.step, value: s.value });
  }
  return new Map([...latest].map(([run, m]) => [run, new Map([...m].map(([t, v]) => [t, v.value]))]));
}

function testSetOrder(x: TestSetRecord | undefined, y: TestSetRecord | undefined, a: string, b: string): number {
  const task = (r: TestSetRecord | undefined) => (typeof r?.spec?.task === 'string' ? r.spec.task : '\uffff');
  const domain = (r: TestSetRecord | undefined) => (r?.spec?.domain === 'in-domain' ? 0 : r?.spec?.domain === 'cross-domain' ? 1 : 2);
  return cmp(task(x), task(y)) || domain(x) - domain(y) || cmp(a, b);
}

function mean(xs: readonly number[]): number {
  return xs.reduce((s, x) => s + x, 0) / xs.length;
}

function cmp(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}
