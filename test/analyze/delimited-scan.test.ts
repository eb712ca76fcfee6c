// The CSV / TSV scanner (delimited-scan.ts) reads a score table without an object per row; csv-parse
// (data/readers/csv.ts) stays the definition of a record, its line and every error. On random tables
// with what real ones hold (quotes, "" inside them, CRLF, a BOM, blank lines, a pandas index, run
// attributes, n and stderr columns, missing values, names with spaces, non-ASCII or a leading ', gzip)
// the two readings must be the same scores, rows, notes and errors; plain tables must be the
// scanner's (no fallback), and a broken one (ragged, a stray or unclosed quote, mixed line endings, a
// line break in a quoted field) must be handed to csv-parse, whose error is the one given.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { mulberry32 } from '../../src/seeded-random.ts';
import { NotPlain, scanDelimited } from '../../src/analyze/delimited-scan.ts';
import { readScoreRecords, readScoreTable } from '../../src/analyze/score-table.ts';
import { tempDir } from './helpers.ts';

type Rng = () => number;
const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)];

/** A random long table's text: header and rows as cells, the writer's choices drawn from `rng`. */
function randomTable(rng: Rng, tsv: boolean): string {
  const sep = tsv ? '\t' : ',';
  const extra = ['model', 'seed', 'n', 'stderr', 'lr'].filter(() => rng() < 0.4);
  const index = !tsv && rng() < 0.3;
  const columns = [...(index ? [''] : []), 'run', 'step', 'test_set', 'metric', 'value', ...extra];
  const quoteAll = !tsv && rng() < 0.25;
  const eol = rng() < 0.3 ? '\r\n' : '\n';
  const names = {
    run: ['r1', 'r2', 'run 3', 'é-run', "'=run"], set: ['id', 'ood-a', 'ood "b"', ' spaced', 'ünï'], metric: ['accuracy', 'f1', 'bleu'],
  };
  const cell = (v: string) => (quoteAll || (!tsv && /[",]/.test(v)) ? `"${v.replaceAll('"', '""')}"` : v);
  const lines = [columns.map(cell).join(sep)];
  const rows = 20 + Math.floor(rng() * 60);
  for (let i = 0; i < rows; i++) {
    const metric = pick(rng, names.metric);
    const value = rng() < 0.05 ? pick(rng, ['', 'NaN', 'nan', ' ']) : rng() < 0.05 ? pick(rng, ['1e-3', '+0.5', '.25', '1.', '0.5 ']) : String(rng());
    const cells: Record<string, string> = {
      '': String(i), run: pick(rng, names.run),
      step: rng() < 0.05 ? pick(rng, ['007', '0', ' 3']) : rng() < 0.0005 ? '10.5' : String(10 * (1 + Math.floor(rng() * 30))),
      test_set: pick(rng, names.set), metric, value: metric === 'bleu' ? String(30 * rng()) : value,
      model: pick(rng, ['m1', 'm2', '', '=cmd']), seed: pick(rng, ['1', '2', '03', '']), n: pick(rng, ['500', '', '1000', 'nan']),
      stderr: pick(rng, ['0.01', '', 'N/A', '0.02']), lr: pick(rng, ['1e-5', '', '0.0001']),
    };
    lines.push(columns.map((c) => cell(cells[c])).join(sep));
    if (rng() < 0.03) lines.push('');
  }
  const bom = rng() < 0.2 ? '\uFEFF' : '';
  return bom + lines.join(eol) + (rng() < 0.8 ? eol : '');
}

/** What a reading is, to compare: the rows, notes and description, or the error's message. */
async function outcome(read: () => Promise<{ rows: unknown[]; notes: string[]; description: string }>): Promise<unknown> {
  try {
    const r = await read();
    return { rows: r.rows, notes: r.notes, description: r.description };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

async function scanned(file: string, tsv: boolean): Promise<'scanned' | 'handed to csv-parse'> {
  try {
    await scanDelimited(file, tsv ? { delimiter: '\t', quote: false } : { delimiter: ',', quote: true }, { header() {}, record() {} });
    return 'scanned';
  } catch (err) {
    if (err instanceof NotPlain) return 'handed to csv-parse';
    throw err;
  }
}

test('random plain tables: the scanner reads them, and its scores, rows, notes and errors are csv-parse\'s', async (t) => {
  const dir = tempDir(t);
  const rng = mulberry32(11);
  let read = 0;
  for (let k = 0; k < 150; k++) {
    const tsv = k % 4 === 3;
    const text = randomTable(rng, tsv);
    const file = join(dir, `t${k}.${tsv ? 'tsv' : 'csv'}${k % 10 === 9 ? '.gz' : ''}`);
    writeFileSync(file, k % 10 === 9 ? gzipSync(text) : text);
    assert.equal(await scanned(file, tsv), 'scanned', `${file}: a plain table`);
    const got = await outcome(() => readScoreTable(file, undefined));
    assert.deepEqual(got, await outcome(() => readScoreRecords(file, undefined)), file);
    if (!('error' in (got as object))) read++;
  }
  assert.ok(read > 100, `most tables read without an error (${read} of 150): the rows are compared, not only the errors`);
});

test('broken tables are handed to csv-parse, and its error is the one given', async (t) => {
  const dir = tempDir(t);
  const header = 'run,step,test_set,metric,value';
  const cases: Record<string, string> = {
    ragged: `${header}\na,1,x,accuracy,0.5\na,2,x,accuracy,0.5,extra\n`,
    unclosed: `${header}\na,1,x,accuracy,0.5\na,"2,x,accuracy,0.5\n`,
    'stray quote': `${header}\na,1,x"y,accuracy,0.5\n`,
    'text after a closing quote': `${header}\na,"1"2,x,accuracy,0.5\n`,
    'mixed line endings': `${header}\r\na,1,x,accuracy,0.5\na,2,x,accuracy,0.5\r\n`,
    'a lone carriage return': `${header}\na,1,x,accuracy,0.5\ra,2,x,accuracy,0.6\n`,
    'a line break in a quoted field': `${header}\na,1,"x\ny",accuracy,0.5\na,2,x,accuracy,0.5\n`,
    'a bad value before a ragged row': `${header}\na,1,x,accuracy,abc\na,2,x,accuracy,0.5,extra\n`,
  };
  for (const [what, text] of Object.entries(cases)) {
    const file = join(dir, `${what.replaceAll(' ', '-')}.csv`);
    writeFileSync(file, text);
    assert.equal(await scanned(file, false), 'handed to csv-parse', what);
    assert.deepEqual(await outcome(() => readScoreTable(file, undefined)), await outcome(() => readScoreRecords(file, undefined)), what);
  }
  // a cell error waits for the whole file: the ragged row after it is the error, as when every record was read first
  const first = await outcome(() => readScoreTable(join(dir, 'a-bad-value-before-a-ragged-row.csv'), undefined));
  assert.match((first as { error: string }).error, /:3: row has 6 fields, expected 5 as in the header \(ragged row\)$/);
});
