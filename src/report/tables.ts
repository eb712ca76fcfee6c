// The report's tables. Each is shown in the page (or summarised there) and written as CSV and JSON
// beside it, with full precision, so every number in a chart can be checked and reused.
import { signVerdict } from '../analyze/analysis.ts';
import { pairTable } from '../analyze/pair-columns.ts';
import { checkTables } from './checks-section.ts';
import { metaTables } from './meta-section.ts';
import type { ReportData } from './report-data.ts';
import type { StudyA } from './study-a.ts';
import type { StudyB } from './study-b.ts';
import type { Cell, Table } from './table.ts';

export function buildTables(data: ReportData, a: StudyA, b: StudyB): Table[] {
  const tables = [withAttributeColumns(runsTable(data), data), testSetsTable(data), scoresTable(data), trainingLogTable(data)];
  if (a.options) tables.push(partialCorrelationsTable(a), agreementTable(a), ...metaTables(a), ...checkTables(a));
  if (b.present) tables.push(studyBTable(b), studyBByRoleTable(b));
  return tables;
}

function runsTable(data: ReportData): Table {
  const rows: Cell[][] = data.runs.map((r) => [
    r.id, r.model ?? null, r.trainingSet ?? null, r.method ?? null, r.seed ?? null, r.studyFile ?? null, r.checkpointFolder ?? null,
    r.checkpoints.length, r.checkpoints.filter((c) => c.contentHash).length,
    JSON.stringify(r.versions ?? {}), JSON.stringify(r.attributes ?? {}),
  ]);
  return {
    name: 'runs', title: 'Runs',
    description: 'One row per run: what it was, its seed, the folder its checkpoints come from, the versions and attributes recorded with it.',
    columns: ['run', 'model', 'training_set', 'method', 'seed', 'study_file', 'checkpoint_folder', 'checkpoints', 'checkpoints_hashed', 'versions',
      'attributes'],
    rows,
  };
}

/**
 * The runs table with a column per run attribute (a score table's `shots` column, a study's `lr`),
 * after the fixed columns, so a spreadsheet can sort and filter on them; an attribute named like a
 * fixed column (a table's `model`, `seed`: already in it) and one holding a list or object (LoRA's
 * settings) stay in the attributes JSON only.
 */
function withAttributeColumns(table: Table, data: ReportData): Table {
  const scalar = (v: unknown) => v === null || v === undefined || ['string', 'number', 'boolean'].includes(typeof v);
  const keys = [...new Set(data.runs.flatMap((r) => Object.keys(r.attributes ?? {})))].sort()
    .filter((k) => !table.columns.includes(k) && data.runs.every((r) => scalar(r.attributes?.[k])));
  const cell = (v: unknown): Cell => (v === undefined || v === null ? null : v as Cell);
  return {
    ...table,
    columns: [...table.columns, ...keys],
    rows: table.rows.map((row, i) => [...row, ...keys.map((k) => cell(data.runs[i].attributes?.[k]))]),
    description: `${table.description}${keys.length
      ? ` Each run attribute holding one value (not a list or object) is also a column of its own (${keys.join(', ')}).` : ''}`,
  };
}

function testSetsTable(data: ReportData): Table {
  return {
    name: 'test_sets', title: 'Test sets', description: 'One row per scored test set: its content hash, size and spec.',
    columns: ['test_set', 'content_hash', 'n', 'task', 'domain', 'spec'],
    rows: data.testSets.map((t) => [
      t.id, t.contentHash ?? null, t.n ?? null,
      typeof t.spec?.task === 'string' ? t.spec.task : null, typeof t.spec?.domain === 'string' ? t.spec.domain : null,
      JSON.stringify(t.spec ?? {}),
    ]),
  };
}

function scoresTable(data: ReportData): Table {
  return {
    name: 'scores', title: 'Scores', description: 'One row per (run, step, test set, metric): the values behind the training curves.',
    columns: ['run', 'step', 'test_set', 'prompt_variant', 'metric', 'value', 'n'],
    rows: data.scores.map((s) => [s.run, s.step, s.testSet, s.promptVariant ?? '', s.metric, s.value, s.n]),
  };
}

function trainingLogTable(data: ReportData): Table {
  const rows: Cell[][] = [];
  for (const r of data.runs) {
    for (const l of r.trainingLog) rows.push([r.id, l.step, l.loss ?? null, l.learningRate ?? null, l.gradNorm ?? null, l.tokensPerSecond ?? null]);
  }
  return {
    name: 'training_log', title: 'Training log', description: 'One row per logged training step.',
    columns: ['run', 'step', 'loss', 'learning_rate', 'grad_norm', 'tokens_per_second'], rows,
  };
}

function partialCorrelationsTable(a: StudyA): Table {
  const alpha = a.options!.alpha;
  return {
    name: 'partial_correlations', title: 'Partial correlations between OOD test sets',
    description: `One row per (run, pair of OOD sets): the partial correlation across checkpoints with "${a.control}" regressed out, on ` +
      `levels or first differences (representation) with n_eff effective observations; significant means adjusted p < ${alpha}.`,
    ...pairTable(a.analysis, alpha),
  };
}

export function isSignificant(p: { r: number | null; p_adjusted: number | null }, alpha: number): boolean {
  return p.r !== null && p.p_adjusted !== null && p.p_adjusted < alpha;
}

function agreementTable(a: StudyA): Table {
  return {
    name: 'agreement', title: "The papers' view: sign agreement across runs",
    description: `One row per pair of OOD sets: in how many runs its partial correlation is significantly positive, negative, or neither ` +
      `(adjusted p < ${a.options!.alpha}).`,
    columns: ['a', 'b', 'positive', 'negative', 'none', 'runs', 'signs'],
    rows: a.analysis.agreement.map((g) => [g.a, g.b, g.positive, g.negative, g.null, g.runs, signVerdict(g)]),
  };
}

function studyBTable(b: StudyB): Table {
  return {
    name: 'study_b', title: 'Study B: training task x test set x method',
    description: 'One row per (model, method, training task, size, shots, test set): the final score, the base model\'s score and the difference.',
    columns: ['model', 'method', 'training_task', 'train_size', 'shots', 'test_set', 'test_set_task', 'role', 'metric', 'score',
      'base_score', 'delta', 'runs', 'note'],
    rows: b.cells.map((c) => [
      c.model, c.method, c.trainingTask, c.trainSize, c.shots, c.testSet, c.testSetTask, c.role, c.metric, c.score,
      c.baseScore, c.delta, c.runs.join(' '), c.deltaNote ?? null,
    ]),
  };
}

export interface RoleSummary { model: string; method: string; trainingTask: string; role: string; testSets: number; meanScore: number;
  meanDelta: number | null }

/** Mean score and mean delta per (model, method, training task, role): the papers' headline view. */
export function summariseByRole(b: StudyB): RoleSummary[] {
  const groups = new Map<string, { key: Omit<RoleSummary, 'testSets' | 'meanScore' | 'meanDelta'>; scores: number[]; deltas: number[] }>();
  for (const c of b.cells) {
    if (c.method === 'base' || c.trainingTask === null) continue;
    const key = { model: c.model, method: c.method, trainingTask: c.trainingTask, role: c.role ?? 'unknown' };
    const k = JSON.stringify(key);
    let g = groups.get(k);
    if (!g) groups.set(k, (g = { key, scores: [], deltas: [] }));
    g.scores.push(c.score);
    if (c.delta !== null) g.deltas.push(c.delta);
  }
  const order = ['in-domain', 'cross-domain', 'cross-task', 'unknown'];
  return [...groups.values()]
    .map(({ key, scores, deltas }) => ({ ...key, testSets: scores.length, meanScore: avg(scores)!, meanDelta: avg(deltas) }))
    .sort((x, y) => cmp(x.model, y.model) || cmp(x.method, y.method) || cmp(x.trainingTask, y.trainingTask) ||
      order.indexOf(x.role) - order.indexOf(y.role));
}

function studyBByRoleTable(b: StudyB): Table {
  return {
    name: 'study_b_by_role', title: 'Study B by role',
    description: 'One row per (model, method, training task, role): mean final score and mean difference from the base model over the ' +
      'test sets of that role.',
    columns: ['model', 'method', 'training_task', 'role', 'test_sets', 'mean_score', 'mean_delta'],
    rows: summariseByRole(b).map((s) => [s.model, s.method, s.trainingTask, s.role, s.testSets, s.meanScore, s.meanDelta]),
  };
}

function avg(xs: readonly number[]): number | null {
  return xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : null;
}

function cmp(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}
