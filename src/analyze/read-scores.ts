// Where `analyze` and `report` get their scores: a genstudy results store (SQLite), a long-format
// CSV / TSV / JSONL / JSON file, a wide CSV (wide-table.ts), or a folder of lm-evaluation-harness
// results (lm-eval-results.ts) or Trainer run folders (trainer-state.ts). Every reading says how
// it read the input (score-reading.ts), and any score given twice is an error whatever its metric.
// Runs are renamed, when asked, as the reading is handed on (run-names.ts), whichever reader read them.
import { open, stat } from 'node:fs/promises';
import { extname } from 'node:path';
import { UserError } from '../errors.ts';
import { readRows, rowWhere, type SourceRow } from '../data/readers/index.ts';
import { ResultStore } from '../store/result-store.ts';
import { readLmEvalFiles } from './lm-eval-results.ts';
import { listScoreFolder } from './score-folder.ts';
import { isMissingValue, scoreRowFromRecord, type ScoreRow } from './score-row.ts';
import { runAttributes } from './run-series.ts';
import { renameRuns, type RunNaming } from './run-names.ts';
import { checkDelimiter } from './table-delimiter.ts';
import type { ScoreReading } from './score-reading.ts';
import { readTrainerStates } from './trainer-state.ts';
import { isWideHeader, parseColumnMap, readWideRows } from './wide-table.ts';

export type ScoreSource = 'store' | 'table' | 'folder';

export interface ReadScoreOptions {
  /** A store keeps prompt variants apart: the one to read ('' = plain). */
  promptVariant?: string;
  /** Wide tables: "column=test_set:metric" for columns whose names do not say it. */
  columns?: readonly string[];
  /** Runs renamed: a prefix taken off, or names given (run-names.ts). */
  runNames?: RunNaming;
}

const TABLE_EXTENSIONS = ['.csv', '.tsv', '.jsonl', '.ndjson', '.json'];
const STORE_EXTENSIONS = ['.sqlite', '.sqlite3', '.db'];
/** What `analyze` and `report` read, declared once: their input's help and the error for an input that is none of these. */
export const SCORE_INPUTS = 'a genstudy results store (.sqlite), ' +
  'a score table (CSV/TSV/JSONL: long with run, step, test_set, metric, value; ' +
  'or wide with a step column and one column per test set and metric, as W&B and pandas export), ' +
  'or a folder of lm-evaluation-harness output (0.3 or 0.4) or Trainer run folders (trainer_state.json)';

export async function detectSource(input: string): Promise<ScoreSource> {
  let info;
  try {
    info = await stat(input);
  } catch {
    throw new UserError(`${input}: no such file or folder`);
  }
  if (info.isDirectory()) return 'folder';
  const fh = await open(input, 'r');
  let sqlite: boolean;
  try {
    const head = Buffer.alloc(16);
    await fh.read(head, 0, 16, 0);
    sqlite = head.toString('latin1') === 'SQLite format 3\u0000';
  } finally {
    await fh.close();
  }
  if (sqlite) return 'store';
  const ext = extname(input.replace(/\.gz$/i, '')).toLowerCase();
  if (STORE_EXTENSIONS.includes(ext)) throw new UserError(
    `${input}: not an SQLite database (it does not start with "SQLite format 3"); expected a results store as \`genstudy run\` writes it`);
  if (!TABLE_EXTENSIONS.includes(ext)) {
    throw new UserError(`${input}: cannot tell what this is from "${ext || 'no extension'}"; expected ${SCORE_INPUTS}`);
  }
  return 'table';
}

/** The score rows of any input `analyze` takes. */
export async function readScores(input: string, opts: ReadScoreOptions = {}): Promise<ScoreRow[]> {
  return (await readScoreInput(input, opts)).rows;
}

/** The score rows of any input, with how they were read and notes on what was left out. */
export async function readScoreInput(input: string, opts: ReadScoreOptions = {}): Promise<ScoreReading> {
  const source = await detectSource(input);
  const read = source === 'folder' ? await readFolder(input)
    : source === 'store' ? { rows: readStoreScores(input, opts.promptVariant ?? ''), description: 'genstudy results store', notes: [] }
    : await readTable(input, opts);
  const reading = renameRuns(read, opts.runNames ?? {});
  checkNoDuplicates(reading.rows);
  return reading;
}

async function readFolder(folder: string): Promise<ScoreReading> {
  const listing = await listScoreFolder(folder);
  const lmEval = await readLmEvalFiles(folder, listing.jsonFiles);
  // every file left out is named, whichever reading (or error) this ends with
  const leftOut = [...lmEval.leftOut, ...listing.notes];
  if (lmEval.reading) {
    const { reading } = lmEval;
    reading.notes.push(...leftOut);
    if (listing.trainerStates.length) reading.notes.push(`${folder}: ${listing.trainerStates.length} trainer_state.json file(s) not read ` +
      `(the folder holds lm-evaluation-harness output; give a Trainer run folder on its own)`);
    return reading;
  }
  if (listing.trainerStates.length) {
    const states = await readTrainerStates(folder, listing.trainerStates);
    states.notes.push(...leftOut);
    return states;
  }
  throw new UserError(`${folder}: no lm-evaluation-harness output (results_*.json, or *.json with a "results" object) and no ` +
    `trainer_state.json found in it or below${leftOut.length ? ` (${leftOut.join('; ')})` : ''}`);
}

async function readTable(file: string, opts: ReadScoreOptions): Promise<ScoreReading> {
  await checkDelimiter(file);
  const records: SourceRow[] = [];
  for await (const row of readRows(file)) records.push(row);
  if (records.length === 0) {
    throw new UserError(`${file}: no score rows (expected columns run, step, test_set, metric, value, or a wide table with a step column)`);
  }
  if (isWideHeader(Object.keys(records[0].values))) return readWideRows(file, records, parseColumnMap(opts.columns));
  if (opts.columns?.length) {
    throw new UserError(`--columns: ${file} is a long table (columns run, step, test_set, metric, value); --columns names the columns of a wide one`);
  }
  const rows: ScoreRow[] = [];
  const missing: string[] = [];
  for (const record of records) {
    const where = rowWhere(file, record);
    // pandas writes a missing score as an empty cell or NaN: a missing row, not a broken file
    if ('value' in record.values && isMissingValue(record.values.value)) missing.push(where);
    else rows.push(scoreRowFromRecord(record.values, where));
  }
  const notes = missing.length ? [
    `${file}: ${missing.length} row(s) with an empty or NaN value read as missing scores (first at ${missing[0]})`] : [];
  if (rows.length === 0) throw new UserError(`${file}: every value is empty or NaN`);
  return { rows, description: 'long table; run, step, test set and metric from columns run, step, test_set, metric', notes };
}

/** A (run, step, test set, metric) given twice is an error, whichever metric is analysed. */
export function checkNoDuplicates(rows: readonly ScoreRow[]): void {
  const first = new Map<string, ScoreRow>();
  for (const row of rows) {
    const key = JSON.stringify([row.run, row.step, row.testSet, row.metric]);
    const earlier = first.get(key);
    if (earlier) {
      throw new UserError(`${row.origin}: duplicate score for run "${row.run}", step ${row.step}, test set "${row.testSet}", metric ` +
        `"${row.metric}" (first given at ${earlier.origin})`);
    }
    first.set(key, row);
  }
}

/** Score rows of a store file, or of a store a caller already holds open. */
export function readStoreScores(source: string | ResultStore, promptVariant: string): ScoreRow[] {
  const store = typeof source === 'string' ? ResultStore.open(source, { readonly: true }) : source;
  const file = store.path;
  try {
    const attributes = new Map(store.runs().map((r) => [r.id, runAttributes(r)]));
    return store.scores({ promptVariant }).map((s) => ({
      run: s.run, step: s.step, testSet: s.testSet, metric: s.metric, value: s.value,
      attributes: attributes.get(s.run) ?? {}, origin: `${file} (store)`, ...(s.n > 0 ? { n: s.n } : {}),
    }));
  } finally {
    if (typeof source === 'string') store.close();
  }
}
