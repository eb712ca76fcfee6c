// A score table written with another separator (Excel in a decimal-comma locale writes ";") parses
// as one column per row: the error said a column "run" was missing, or that a row was ragged. It now
// names the separator the header holds and says genstudy reads comma-separated .csv files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { genstudy } from '../support/genstudy-in-process.ts';
import { tempDir } from './helpers.ts';

const ROWS = [['run', 'step', 'test_set', 'metric', 'value'], ['a', '1', 'x', 'accuracy', '0.5'], ['a', '2', 'x', 'accuracy', '0.6']];

test('a .csv whose header is one field holding ";", a tab or "|" is exit 2 naming that separator', async (t) => {
  const dir = tempDir(t);
  const cases: [string, string, RegExp][] = [
    ['semicolon.csv', ROWS.map((r) => r.join(';')).join('\n'), new RegExp(
      /semicolon\.csv:1: the header row is one field holding ";": the file looks ";"-separated, /.source +
      /and genstudy reads comma-separated \.csv files; write it with commas/.source)],
    // decimal commas make the rows ragged under ",": the separator is still what is named
    ['excel.csv', ROWS.map((r) => r.map((c) => c.replace('.', ',')).join(';')).join('\r\n'), /excel\.csv:1: the header row is one field holding ";"/],
    ['quoted.csv', ROWS.map((r) => r.map((c) => `"${c}"`).join(';')).join('\n'), /quoted\.csv:1: the header row is one field holding ";"/],
    ['tabs.csv', ROWS.map((r) => r.join('\t')).join('\n'), /tabs\.csv:1: the header row is one field holding a tab: .* name it \.tsv/],
    ['pipes.csv', `\uFEFF${ROWS.map((r) => r.join('|')).join('\n')}`, /pipes\.csv:1: the header row is one field holding "\|"/],
    ['commas.tsv', ROWS.map((r) => r.join(',')).join('\n'),
      /commas\.tsv:1: the header row is one field holding ",": .* genstudy reads tab-separated \.tsv files; name it \.csv/],
  ];
  for (const [name, text, expected] of cases) {
    writeFileSync(join(dir, name), `${text}\n`);
    const r = await genstudy(['analyze', join(dir, name), '--control', 'x']);
    assert.equal(r.code, 2, `${name}: ${r.stderr}`);
    assert.match(r.stderr, expected, name);
    assert.equal(r.stderr.trim().split('\n').length, 1, `${name}: one line`);
  }
  writeFileSync(join(dir, 'zipped.csv.gz'), gzipSync(`${ROWS.map((r) => r.join(';')).join('\n')}\n`));
  const zipped = await genstudy(['analyze', join(dir, 'zipped.csv.gz'), '--control', 'x']);
  assert.equal(zipped.code, 2, zipped.stderr);
  assert.match(zipped.stderr, /zipped\.csv\.gz:1: the header row is one field holding ";"/);
});
