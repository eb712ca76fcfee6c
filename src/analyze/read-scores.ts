// Where `analyze` gets its scores: a genstudy results store (SQLite), a long-format CSV / TSV /
// JSONL / JSON file, or a folder of lm-evaluation-harness results.
import { open, stat } from 'node:fs/promises';
import { UserError } from '../errors.ts';
import { readRows, rowWhere } from '../data/readers/index.ts';
import { ResultStore } from '../store/result-store.ts';
import { readLmEvalFolder } from './lm-eval-results.ts';
import { scoreRowFromRecord, type ScoreRow } from './score-row.ts';

export type ScoreSource = 'store' | 'table' | 'lm-eval';

export async function detectSource(input: string): Promise<ScoreSource> {
  let info;
  try {
    info = await stat(input);
  } catch {
    throw new UserError(`${input}: no such file or folder`);
  }
  if (info.isDirectory()) return 'lm-eval';
  const fh = await open(input, 'r');
  try {
    const head = Buffer.alloc(16);
    await fh.read(head, 0, 16, 0);
    if (head.toString('latin1') === 'SQLite format 3\u0000') return 'store';
  } finally {
    await fh.close();
  }
  return 'table';
}

export async function readScores(input: string, opts: { promptVariant?: string } = {}): Promise<ScoreRow[]> {
  const source = await detectSource(input);
  if (source === 'lm-eval') return readLmEvalFolder(input);
  if (source === 'store') return readStoreScores(input, opts.promptVariant ?? '');
  return readLongTable(input);
}

export async function readLongTable(file: string): Promise<ScoreRow[]> {
  const rows: ScoreRow[] = [];
  for await (const row of readRows(file)) rows.push(scoreRowFromRecord(row.values, rowWhere(file, row)));
  if (rows.length === 0) throw new UserError(`${file}: no score rows (expected columns run, step, test_set, metric, value)`);
  return rows;
}

/** Score rows of a store file, or of a store a caller already holds open. */
export function readStoreScores(source: string | ResultStore, promptVariant: string): ScoreRow[] {
  const store = typeof source === 'string' ? ResultStore.open(source, { readonly: true }) : source;
  const file = store.path;
  try {
    const attributes = new Map(store.runs().map((r) => [r.id, runAttributes(r)]));
    return store.scores({ promptVariant }).map((s) => ({
      run: s.run, step: s.step, testSet: s.testSet, metric: s.metric, value: s.value,
      attributes: attributes.get(s.run) ?? {}, origin: `${file} (store)`,
    }));
  } finally {
    if (typeof source === 'string') store.close();
  }
}

function runAttributes(r: ReturnType<ResultStore['runs']>[number]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries({ model: r.model, training_set: r.trainingSet, method: r.method, seed: r.seed, ...r.attributes })) {
    if (v !== null && v !== undefined) out[k] = typeof v === 'string' ? v : JSON.stringify(v);
  }
  return out;
}
