// A long CSV's values as the scanner reads them (long-table.ts: up to 15 digits without an exponent
// as one division, Clinger's fast path; anything else through Number()) are Number()'s doubles, bit
// for bit and the zero's sign too, on values written every way a table writes them.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { readScoreTable } from '../../src/analyze/score-table.ts';
import { mulberry32 } from '../../src/seeded-random.ts';
import { tempDir } from './helpers.ts';

function randomValue(rng: () => number): string {
  const digits = (k: number) => Array.from({ length: k }, () => Math.floor(rng() * 10)).join('');
  const sign = rng() < 0.1 ? '-' : rng() < 0.1 ? '+' : '';
  const kind = Math.floor(rng() * 6);
  if (kind === 0) return String(rng()); // 16-17 digits, Number()'s
  if (kind === 1) return rng().toFixed(Math.floor(rng() * 16)); // 0.xxxxxx as pandas or toFixed write them
  if (kind === 2) return `${sign}${digits(1 + Math.floor(rng() * 8))}.${digits(Math.floor(rng() * 10))}`; // up to 18 digits
  if (kind === 3) return `${sign}.${digits(1 + Math.floor(rng() * 16))}`;
  if (kind === 4) return `${sign}${digits(1 + Math.floor(rng() * 3))}e${rng() < 0.5 ? '-' : ''}${Math.floor(rng() * 30)}`;
  return `${sign}${rng() < 0.5 ? '0' : '0.0'}`;
}

test('scanned values are the doubles Number() gives', async (t) => {
  const rng = mulberry32(9);
  const values = Array.from({ length: 20000 }, () => randomValue(rng));
  const file = join(tempDir(t), 'values.csv');
  writeFileSync(file, ['run,step,test_set,metric,value', ...values.map((v, i) => `r,${i},a,score,${v}`)].join('\n') + '\n');
  const { scores } = await readScoreTable(file, undefined);
  assert.equal(scores.length, values.length);
  for (let i = 0; i < values.length; i++) {
    assert.ok(Object.is(scores.valueOf(i), Number(values[i])), `${values[i]}: ${scores.valueOf(i)} against ${Number(values[i])}`);
  }
});
