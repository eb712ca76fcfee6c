// Names taken from input files are written so that nothing opening the outputs runs or reorders
// them: CSV cells a spreadsheet would run as formulas get a leading ' (and read back unchanged by
// genstudy), the terminal gets control characters escaped, the page gets names bidi-isolated.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readFileSync, writeFileSync } from 'node:fs';
import { csvCell } from '../../src/analyze/text-cells.ts';
import { readRows } from '../../src/data/readers/index.ts';
import { loadDataSet } from '../../src/data/load.ts';
import { escapeHtml } from '../../src/report/escape.ts';
import { writeReport } from '../../src/report/index.ts';
import { ResultStore } from '../../src/store/result-store.ts';
import { genstudy } from '../support/genstudy-in-process.ts';
import { simulateScores } from '../support/simulated-scores.ts';
import { tempDir } from './helpers.ts';

const FORMULA_RUN = '=HYPERLINK("http://example.com","x")';
const RLO_RUN = 'abc\u202edef';
const ESC_RUN = 'red\u001b[31mrun\u001b]0;title\u0007';
// Where names are printed, a 20-simulation calibration gives the same tables and lines as the default 200 at a fraction of the CPU;
// the CSV test reads no analysis and has none of either.
const SMALL_CALIBRATION = { calibration: 20 };
const NEITHER = { calibration: 0, robustness: false };

function storeWith(dir: string, runs: readonly string[]): string {
  const file = join(dir, 'results.sqlite');
  const store = ResultStore.open(file);
  const rows = simulateScores({ seed: 3, runs: runs.length, steps: 12 });
  const names = [...new Set(rows.map((r) => r.run))];
  for (const run of runs) store.upsertRun({ id: run, attributes: { control_test_set: 'in-domain' } });
  store.writeScores(rows.map((r) => ({
    run: runs[names.indexOf(r.run)], step: r.step, testSet: r.test_set === 'overlap-broken' ? '@SUM(A1)' : r.test_set,
    metric: r.metric, value: r.value, n: 100,
  })));
  store.writeScores([{ run: runs[0], step: 99, testSet: '-cmd', metric: 'delta', value: -0.25, n: 1 }]);
  store.close();
  return file;
}

test('CSV cells: text a spreadsheet would run as a formula gets a leading \'; numbers, even negative, stay numbers', () => {
  assert.deepEqual(['=1+1', '+x', '-x', '@x', '\tx', 'a=b', '-0.25', '+3', '-1e-5', ''].map(csvCell),
    ["'=1+1", "'+x", "'-x", "'@x", "'\tx", 'a=b', '-0.25', '+3', '-1e-5', '']);
  assert.equal(csvCell('\rx'), '"\'\rx"');
  assert.deepEqual([-0.25, -3].map(csvCell), ['-0.25', '-3']);
});

test('the report\'s scores.csv neutralises formula names, and genstudy reads them back unchanged; a data set is read verbatim', async (t) => {
  const dir = tempDir(t);
  const storePath = storeWith(dir, [FORMULA_RUN, 'plain']);
  const out = join(dir, 'report');
  await writeReport(out, { storePath, control: 'in-domain', analysis: NEITHER });
  const csv = readFileSync(join(out, 'scores.csv'), 'utf8');
  assert.ok(csv.includes(`"'=HYPERLINK(""http://example.com"",""x"")",`), 'the formula run is quoted with a leading \'');
  assert.ok(csv.includes(",'@SUM(A1),"), 'so is the @ test set');
  assert.match(csv, /,99,'-cmd,,delta,-0\.25,1\n/, 'the negative score stays a plain number');
  assert.doesNotMatch(csv, /(^|,)[=@+]/m, 'no cell starts with a formula character');
  const back = [];
  for await (const row of readRows(join(out, 'scores.csv'))) back.push(row.values);
  assert.deepEqual(new Set(back.map((v) => v.run)), new Set([FORMULA_RUN, 'plain']));
  assert.ok(back.some((v) => v.test_set === '@SUM(A1)') && back.some((v) => v.test_set === '-cmd' && v.value === '-0.25'));
  // analyze reads the report's table as it reads the store
  const fromCsv = await genstudy(['analyze', join(out, 'scores.csv'), '--control', 'in-domain', '--format', 'json', '--metric', 'accuracy',
    '--calibration', '0', '--no-robustness']);
  assert.equal(fromCsv.code, 0, fromCsv.stderr);
  assert.deepEqual(JSON.parse(fromCsv.stdout).runs.map((r: { run: string }) => r.run).sort(), [FORMULA_RUN, 'plain'].sort());
  // A data set's own text keeps its '
  const data = join(dir, 'data.csv');
  writeFileSync(data, "id,text,label\n1,'=quoted,yes\n2,plain,no\n");
  const set = await loadDataSet({ path: data, fields: { text: 'text' }, label: 'label', id: 'id' });
  assert.equal(set.examples[0].fields.text, "'=quoted");
});

test('escape sequences in a run name reach the terminal escaped, in notes, tables and errors', async (t) => {
  const dir = tempDir(t);
  const sim = simulateScores({ seed: 3, runs: 2, steps: 12 });
  const rows = sim.map((r) => ({ ...r, run: r.run === sim[0].run ? ESC_RUN : r.run }));
  // A step with only the control's score: the run is named in the note that leaves it out.
  rows.push({ ...rows[0], step: 9999, test_set: 'in-domain' });
  const file = join(dir, 's.csv');
  writeFileSync(file, [Object.keys(rows[0]).join(','), ...rows.map((r) => Object.values(r).join(','))].join('\n') + '\n');
  const r = await genstudy(['analyze', file, '--control', 'in-domain', '--bootstrap', '0', '--calibration', '20']);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(r.stderr.includes('run "red\\x1b[31mrun\\x1b]0;title\\x07": 1 step(s) left out'), r.stderr);
  assert.ok(r.stdout.includes('red\\x1b[31mrun'), 'the table names the run, escaped');
  const controls = (text: string) => [...text].filter((c) => c !== '\n' && c.charCodeAt(0) < 0x20);
  for (const text of [r.stdout, r.stderr]) assert.deepEqual(controls(text), []);
  const e = await genstudy(['analyze', file, '--control', `in-domain\u001b[2J`]);
  assert.equal(e.code, 2, e.stderr);
  assert.match(e.stderr, /in-domain\\x1b\[2J/);
  assert.deepEqual(controls(e.stderr), []);
});

test('names in the page are bidi-isolated: a right-to-left override ends with its name', async (t) => {
  assert.equal(escapeHtml('plain <b>'), 'plain &lt;b&gt;');
  assert.equal(escapeHtml(RLO_RUN), '\u2068abc\u202edef\u202c\u2069');
  // A closing control without its opening one would end the page's own context: dropped.
  assert.equal(escapeHtml('x\u2069\u202cy\u202e'), '\u2068xy\u202e\u202c\u2069');
  assert.equal(escapeHtml('שלום'), '\u2068שלום\u2069');
  const dir = tempDir(t);
  const { html } = await writeReport(join(dir, 'report'), { storePath: storeWith(dir, [RLO_RUN, 'plain']), control: 'in-domain',
    analysis: SMALL_CALIBRATION });
  const page = readFileSync(html, 'utf8');
  const occurrences = page.split('abc\u202edef').length - 1;
  assert.ok(occurrences > 2, 'the run is named in the page');
  // Every override the name opens is closed within its text or attribute (the charts' descriptions too), never left open past it.
  for (const m of page.matchAll(/abc\u202edef[^\u202c"<]*(.)/gs)) {
    assert.equal(m[1], '\u202c', JSON.stringify(page.slice(m.index! - 40, m.index! + 60)));
  }
});
