// Per-example results given as a table of their own (`--example-results FILE`), for scores from an
// evaluation of one's own: CSV, TSV or JSON Lines with one row per run, checkpoint, test set and
// example: `run, step, test_set, example, correct` (`example_id` for `example`; `correct` 1 / 0 or
// true / false). Runs are named as the scores' input names them, before --strip-prefix or
// --run-name. Read whole into memory, grouped by run and test set (example-results.ts).
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parse } from 'csv-parse/sync';
import { UserError, unreadable } from '../errors.ts';
import { parseJsonLines, stripBom } from '../json-text.ts';
import type { ExampleResult, ExampleResultSource } from './example-results.ts';

const COLUMNS = { run: ['run'], step: ['step'], testSet: ['test_set'], example: ['example', 'example_id'], correct: ['correct'] } as const;

export function readExampleResultsTable(file: string): ExampleResultSource {
  const rows = tableRows(file);
  const byRunAndSet = new Map<string, ExampleResult[]>();
  const seen = new Set<string>();
  for (const { line, values } of rows) {
    const field = (k: keyof typeof COLUMNS) => {
      const name = COLUMNS[k].find((c) => c in values);
      if (name === undefined) throw new UserError(`${file}, line ${line}: no column ${COLUMNS[k].join(' or ')}`, { file, line });
      return values[name];
    };
    const run = String(field('run')), testSet = String(field('testSet')), example = String(field('example'));
    const step = Number(field('step'));
    if (!Number.isSafeInteger(step) || step < 0) {
      throw new UserError(`${file}, line ${line}: column step: expected a whole number, got ${String(field('step'))}`, { file, line, field: 'step' });
    }
    const correct = rightOrWrong(field('correct'));
    if (correct === undefined) {
      throw new UserError(`${file}, line ${line}: column correct: expected 1 / 0 or true / false, got ${String(field('correct'))}`,
        { file, line, field: 'correct' });
    }
    const key = `${run}\u0000${testSet}`;
    const id = `${key}\u0000${step}\u0000${example}`;
    if (seen.has(id)) {
      throw new UserError(`${file}, line ${line}: a second row for run ${run}, step ${step}, ${testSet}, example ${example}`, { file, line });
    }
    seen.add(id);
    const list = byRunAndSet.get(key);
    const result = { step, exampleId: example, right: correct };
    if (list) list.push(result);
    else byRunAndSet.set(key, [result]);
  }
  for (const list of byRunAndSet.values()) {
    list.sort((a, b) => a.step - b.step || (a.exampleId < b.exampleId ? -1 : a.exampleId > b.exampleId ? 1 : 0));
  }
  return (run, testSet) => byRunAndSet.get(`${run}\u0000${testSet}`);
}

function rightOrWrong(v: unknown): boolean | undefined {
  if (v === true || v === 1 || v === '1' || v === 'true' || v === 'True') return true;
  if (v === false || v === 0 || v === '0' || v === 'false' || v === 'False') return false;
  return undefined;
}

function tableRows(file: string): { line: number; values: Record<string, unknown> }[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw unreadable(file, err);
  }
  const ext = extname(file).toLowerCase();
  if (ext === '.jsonl' || ext === '.ndjson') return parseJsonLines(text, file);
  if (ext !== '.csv' && ext !== '.tsv') {
    throw new UserError(`${file}: --example-results reads .csv, .tsv or .jsonl, not "${ext || 'no extension'}"`, { file });
  }
  try {
    const records = parse(stripBom(text), { columns: true, delimiter: ext === '.tsv' ? '\t' : ',', skip_empty_lines: true, info: true }) as
      { record: Record<string, string>; info: { lines: number } }[];
    return records.map(({ record, info }) => ({ line: info.lines, values: record }));
  } catch (err) {
    throw new UserError(`${file}: ${(err as Error).message}`, { file });
  }
}
