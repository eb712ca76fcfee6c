// The analysis's one way of writing its numbers and CSV cells (src/analyze/text-cells.ts), which
// the terminal tables, the verdicts, analyze's CSV files and the report's exports all use.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { csvCell, csvParts, csvText, intervalText, pValueText } from '../../src/analyze/text-cells.ts';
import { tableToCsv } from '../../src/report/table.ts';

test('p-values: 4 decimals, exponent form below 1e-4; intervals to 3 decimals', () => {
  assert.equal(pValueText(0.04321), '0.0432');
  assert.equal(pValueText(0.0001), '0.0001');
  assert.equal(pValueText(0.00004567), '4.6e-5');
  assert.equal(intervalText([-0.12345, 0.5]), '[-0.123, 0.500]');
});

test('CSV cells: RFC 4180 quoting, empty for a missing or non-finite value, numbers in full precision; the report writes the same', () => {
  assert.deepEqual([null, undefined, NaN, Infinity, 0.1 + 0.2, true, 'a,"b"', 'x\ny'].map(csvCell),
    ['', '', '', '', '0.30000000000000004', 'true', '"a,""b"""', '"x\ny"']);
  const columns = ['run', 'r', 'p'];
  const rows = [['r1', 0.5, NaN], ['r,2', null, 1e-7]];
  assert.equal(csvText(columns, rows), 'run,r,p\nr1,0.5,\n"r,2",,1e-7\n');
  assert.equal(tableToCsv({ name: 't', title: 't', description: '', columns, rows }), csvText(columns, rows));
});

test('CSV in parts: the header, then a thousand rows a part, iterable again; joined it is csvText, line for line', () => {
  const columns = ['run', 'step', 'value'];
  const rows = Array.from({ length: 2500 }, (_, i) => [`r${i % 3}`, i, i / 7]);
  const parts = [...csvParts(columns, rows)];
  assert.deepEqual(parts.map((p) => p.split('\n').length - 1), [1, 1000, 1000, 500]);
  assert.equal(parts.join(''), csvText(columns, rows));
  assert.equal([...csvParts(columns, rows)].join(''), parts.join(''), 'a second pass gives the same parts');
  assert.equal(csvText(columns, rows).split('\n')[2500], `r${2499 % 3},2499,${2499 / 7}`);
});
