// Where `analyze` and `report` get their scores: a genstudy results store (SQLite), a long-format
// CSV / TSV / JSONL / JSON file, a wide CSV (score-table.ts), or a folder of one of the folder
// formats (folder-readers.ts: lm-evaluation-harness results, Trainer run folders). Every reading says how
// it read the input (score-reading.ts), and any score given twice is an error whatever its metric. The
// scores are columns (score-columns.ts); `rows` makes them objects for a library caller that asks.
// Runs are renamed, when asked, as the reading is handed on (run-names.ts), whichever reader read them.
import { open, stat } from 'node:fs/promises';
import { extname } from 'node:path';
import { UserError } from '../errors.ts';
import { ResultStore } from '../store/result-store.ts';
import { storeExampleResults } from './store-example-results.ts';
import { FOLDER_READERS } from './folder-readers.ts';
import { listScoreFolder } from './score-folder.ts';
import type { ScoreRow } from './score-row.ts';
import { runAttributes } from './run-series.ts';
import { renameRuns, type RunNaming } from './run-names.ts';
import { ScoreColumns } from './score-columns.ts';
import { scoreReading, type ScoreReading } from './score-reading.ts';
import { readScoreTable } from './score-table.ts';

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
  `or a folder of ${FOLDER_READERS.map((r) => r.inputWords).join(' or ')}`;

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

/** The score rows of any input `analyze` takes, as objects (the analysis reads readScoreInput's columns). */
export async function readScores(input: string, opts: ReadScoreOptions = {}): Promise<ScoreRow[]> {
  return (await readScoreInput(input, opts)).rows;
}

/** The scores of any input, with how they were read and notes on what was left out. */
export async function readScoreInput(input: string, opts: ReadScoreOptions = {}): Promise<ScoreReading> {
  const source = await detectSource(input);
  const read = source === 'folder' ? await readFolder(input)
    : source === 'store' ? storeReading(input, opts.promptVariant ?? '')
    : await readScoreTable(input, opts.columns);
  const reading = renameRuns(read, opts.runNames ?? {});
  reading.scores.refuseDuplicates();
  return reading;
}

/**
 * A folder: the folder readers (folder-readers.ts) tried in order on the files each claims, the
 * first that gives a reading kept; every file left out is named, whichever reading (or error) this ends with.
 */
async function readFolder(folder: string): Promise<ScoreReading> {
  const listing = await listScoreFolder(folder);
  const leftOut: string[] = [];
  for (const [k, reader] of FOLDER_READERS.entries()) {
    const files = listing[reader.listedAs];
    if (files.length === 0) continue;
    const read = await reader.read(folder, files);
    leftOut.push(...read.leftOut);
    if (read.reading === undefined) continue;
    const { reading } = read;
    reading.notes.push(...leftOut, ...listing.notes);
    for (const other of FOLDER_READERS.slice(k + 1)) {
      const unread = listing[other.listedAs].length;
      if (unread === 0) continue;
      reading.notes.push(`${folder}: ${unread} ${other.filesWord} not read (the folder holds ${reader.holds}; give ${other.alone} on its own)`);
    }
    return reading;
  }
  leftOut.push(...listing.notes);
  throw new UserError(`${folder}: no ${FOLDER_READERS.map((r) => r.lookedFor).join(' and no ')} found in it or below` +
    `${leftOut.length ? ` (${leftOut.join('; ')})` : ''}`);
}

/** A store's scores, said to come with per-example answers where it holds some (what the control's error covariance needs). */
function storeReading(input: string, promptVariant: string): ScoreReading {
  const store = ResultStore.open(input, { readonly: true });
  try {
    const answers = store.hasAnswers(promptVariant);
    return scoreReading({
      scores: storeScores(store, promptVariant),
      description: `genstudy results store${answers ? ' (with each checkpoint\'s per-example answers)' : ''}`, notes: [],
      exampleResults: storeExampleResults(input, promptVariant),
    });
  } finally {
    store.close();
  }
}

/** Score rows of a store file, or of a store a caller already holds open. */
export function readStoreScores(source: string | ResultStore, promptVariant: string): ScoreRow[] {
  return storeScores(source, promptVariant).rows();
}

/** A store's scores of one prompt variant as columns, each row with its run's attributes. */
function storeScores(source: string | ResultStore, promptVariant: string): ScoreColumns {
  const store = typeof source === 'string' ? ResultStore.open(source, { readonly: true }) : source;
  try {
    const attributes = new Map(store.runs().map((r) => [r.id, runAttributes(r)]));
    const scores = new ScoreColumns();
    const place = scores.placeId(`${store.path} (store)`);
    for (const s of store.iterateScores({ promptVariant })) {
      const i = scores.push(scores.runId(s.run), s.step, scores.testSetId(s.testSet), scores.metricId(s.metric), s.value, place);
      for (const [name, text] of Object.entries(attributes.get(s.run) ?? {})) scores.setAttribute(i, scores.attributeId(name), text);
      if (s.n > 0) scores.setN(i, s.n);
    }
    return scores;
  } finally {
    if (typeof source === 'string') store.close();
  }
}
