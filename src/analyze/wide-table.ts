// Wide score tables, as W&B and pandas export them: one row per evaluation step, a step column, and
// one column per test set and metric ("eval/mnli_accuracy", "hans/acc", "mnli accuracy"; in a W&B
// chart export "<run> - eval/mnli_accuracy" with "__MIN" / "__MAX" companions). The run is a "run"
// column, else the "<run> - " prefix, else the file's name. Which column is which test set and metric
// is read from the name (a known metric at its end, a set before it) or given (`columns`); columns
// neither names (train/loss, _runtime, epoch) are listed as left out. An empty or NaN cell (W&B leaves
// a metric's cell empty on steps it did not log) is a missing score. A column named like a score
// column plus "_stderr" or " stderr" ("hans/acc_stderr", as lm-eval's W&B logger names it) gives
// that score's standard error and is not a score itself.
import { basename, extname } from 'node:path';
import { UserError } from '../errors.ts';
import { rowWhere } from '../data/readers/index.ts';
import { checkValueRange, isMissingValue, parseDecimal, parseStderr, parseStep } from './score-row.ts';
import type { ScoreColumns } from './score-columns.ts';
import { scoreReading, type ScoreReading } from './score-reading.ts';

export const STEP_COLUMNS = ['step', '_step', 'Step', 'global_step', 'train/global_step', 'trainer/global_step'];
const RUN_COLUMNS = ['run', 'run_name', 'Name'];
/** Metric names recognised at the end of a column name, longest first when matching. */
const KNOWN_METRICS = [
  'accuracy', 'acc', 'acc_norm', 'f1', 'macro_f1', 'exact_match', 'em', 'precision', 'recall', 'mcc',
  'rouge1', 'rouge2', 'rougeL', 'rougeLsum', 'bleu', 'loss', 'ppl', 'perplexity',
].sort((a, b) => b.length - a.length);
const EVAL_PREFIXES = ['eval/', 'eval_', 'test/', 'test_', 'validation/', 'val/'];
const SEPARATORS = ['/', '_', '.', ' ', '-', ':'];
/** Training-time columns (the training loss, learning rate): never a test set's score. */
const TRAINING_PREFIXES = ['train/', 'train_', 'trainer/'];

/** A column given its test set and metric explicitly: "column=set:metric". */
export type ColumnMap = Map<string, { testSet: string; metric: string }>;

export function parseColumnMap(specs: readonly string[] | undefined): ColumnMap {
  const out: ColumnMap = new Map();
  for (const spec of specs ?? []) {
    const m = /^(.+)=([^=:]+):([^=:]+)$/.exec(spec);
    if (!m) throw new UserError(`--columns ${spec}: expected column=test_set:metric, e.g. "eval/mnli_acc=mnli:accuracy"`);
    out.set(m[1], { testSet: m[2], metric: m[3] });
  }
  return out;
}

export function isWideHeader(columns: readonly string[]): boolean {
  // a long table missing a column is a broken long table, not a wide one
  return STEP_COLUMNS.some((c) => columns.includes(c)) && !columns.includes('test_set') && !columns.includes('metric');
}

/** The test set and metric a column's name says, or undefined. */
export function inferColumn(name: string): { testSet: string; metric: string } | undefined {
  if (TRAINING_PREFIXES.some((p) => name.startsWith(p))) return undefined;
  let rest = name;
  for (const p of EVAL_PREFIXES) if (rest.startsWith(p)) { rest = rest.slice(p.length); break; }
  for (const metric of KNOWN_METRICS) {
    for (const sep of SEPARATORS) {
      const tail = `${sep}${metric}`;
      if (rest.endsWith(tail) && rest.length > tail.length) return { testSet: rest.slice(0, -tail.length), metric };
    }
  }
  return undefined;
}

interface Mapped { column: string; run?: string; testSet: string; metric: string; how: 'given' | 'name'; stderr?: string }

/** A wide table read into score columns one record at a time (records as objects: csv-parse's, or the JSON readers'). */
export class WideTable {
  private readonly stepColumn: string;
  private readonly runColumn: string | undefined;
  private readonly fileRun: string;
  private readonly mapped: Mapped[] = [];
  private readonly leftOut: string[] = [];
  private readonly attributes: number;
  private missing = 0;

  /** `columns`: the table's column names (a CSV's header, the first JSON record's keys); a mapping that reads nothing throws. */
  constructor(private readonly file: string, private readonly scores: ScoreColumns, columns: readonly string[], given: ColumnMap) {
    this.stepColumn = STEP_COLUMNS.find((c) => columns.includes(c))!;
    this.runColumn = RUN_COLUMNS.find((c) => columns.includes(c));
    this.fileRun = basename(file, extname(file.replace(/\.gz$/, '')));
    const { mapped, leftOut, stepColumn, runColumn } = this;
    const stderrColumns = stderrColumnsOf(columns);
    for (const column of columns) {
      if (column === stepColumn || column === runColumn || [...stderrColumns.values()].includes(column)) continue;
      if (/__(MIN|MAX)$/.test(column)) continue; // W&B chart export: the band around a smoothed line
      const wandb = /^(.+?) - (.+)$/.exec(column);
      const name = wandb ? wandb[2] : column;
      const target = given.get(column) ?? given.get(name);
      const inferred = target ?? inferColumn(name);
      if (!inferred) { leftOut.push(column); continue; }
      mapped.push({ column, run: wandb?.[1], ...inferred, how: target ? 'given' : 'name', stderr: stderrColumns.get(column) });
    }
    for (const [stem, column] of stderrColumns) if (!mapped.some((m) => m.column === stem)) leftOut.push(column);
    for (const column of given.keys()) {
      if (!columns.includes(column) && !mapped.some((m) => m.column.endsWith(` - ${column}`))) {
        throw new UserError(`--columns ${column}: ${file} has no such column (it has: ${columns.join(', ')})`);
      }
    }
    if (mapped.length === 0) {
      throw new UserError(`${file}: a wide table (step column "${stepColumn}") but no column names a test set and metric (columns: ` +
        `${columns.join(', ')}); name them with --columns column=test_set:metric`);
    }
    this.attributes = scores.attributeId('source');
  }

  record(values: Record<string, unknown>, at: { index: number; line?: number }): void {
    const where = rowWhere(this.file, at);
    const stepValue = values[this.stepColumn];
    if (isMissingValue(stepValue)) return;
    const step = parseStep(stepValue, where, `column "${this.stepColumn}"`);
    const rowRun = this.runColumn ? String(values[this.runColumn]) : undefined;
    for (const m of this.mapped) {
      const v = values[m.column];
      if (isMissingValue(v)) { this.missing++; continue; }
      const origin = `${where}, column "${m.column}"`;
      const value = parseDecimal(v, origin, `column "${m.column}"`);
      checkValueRange(m.metric, value, origin);
      const stderr = m.stderr === undefined ? undefined : parseStderr(values[m.stderr], where, `column "${m.stderr}"`);
      const { place, number } = this.scores.recordPlace(this.file, at, `, column "${m.column}"`);
      const i = this.scores.push(this.scores.runId(m.run ?? rowRun ?? this.fileRun), step, this.scores.testSetId(m.testSet),
        this.scores.metricId(m.metric), value, place, number);
      this.scores.setAttribute(i, this.attributes, 'wide table');
      if (stderr !== undefined) this.scores.setStderr(i, stderr);
    }
  }

  finish(): ScoreReading {
    const { file, mapped, leftOut, missing } = this;
    if (this.scores.length === 0) {
      throw new UserError(`${file}: every cell of the score columns (${mapped.map((m) => m.column).join(', ')}) is empty or NaN`);
    }
    const notes: string[] = [];
    if (leftOut.length) notes.push(
      `${file}: columns naming no test set and metric left out: ${leftOut.join(', ')} (name one with --columns column=test_set:metric)`);
    if (missing) notes.push(`${file}: ${missing} empty or NaN cell(s) read as missing scores`);
    const runFrom = mapped.some((m) => m.run) ? 'the "<run> - " column prefix' : this.runColumn ? `column "${this.runColumn}"` : 'the file name';
    const shown = mapped.slice(0, 4).map((m) => `${m.column} -> ${m.testSet}:${m.metric}`).join(', ');
    const withStderr = mapped.filter((m) => m.stderr !== undefined).length;
    return scoreReading({
      scores: this.scores,
      description: `wide table; run from ${runFrom}, step from column "${this.stepColumn}", test set and metric from column names ` +
        `(${shown}${mapped.length > 4 ? ', ...' : ''})${withStderr ? `, stderr of ${withStderr} from their "_stderr" column(s)` : ''}`,
      notes,
    });
  }
}

/** Score column -> the column beside it holding its standard error ("<column>_stderr" or "<column> stderr"). */
function stderrColumnsOf(columns: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const column of columns) {
    const m = /^(.+)(?:_stderr| stderr)$/.exec(column);
    if (m && columns.includes(m[1])) out.set(m[1], column);
  }
  return out;
}
