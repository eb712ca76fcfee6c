// What analyze says about inputs that are wrong or odd: each a user error
// (exit 2) naming what to change, or a note where the input is fine but something was left out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { simulateScores } from '../support/simulated-scores.ts';
import { genstudy } from '../support/genstudy-in-process.ts';
import { tempDir, writeCsv } from './helpers.ts';

const HEADER = 'run,step,test_set,metric,value\n';

test('bad values, duplicates in any metric, an unclosed quote and a fake .sqlite are one clear line each', async (t) => {
  const dir = tempDir(t);
  const cases: [string, string, RegExp][] = [
    ['hex.csv', `${HEADER}a,1,x,accuracy,0x10\n`, /hex\.csv:2: column "value": expected a finite number, got "0x10"/],
    ['hexstep.csv', `${HEADER}a,0x10,x,accuracy,0.5\n`, /hexstep\.csv:2: column "step": expected a finite number, got "0x10"/],
    ['high.csv', `${HEADER}a,1,x,accuracy,0.5\na,2,x,accuracy,1.7\n`, /high\.csv:3: accuracy 1\.7 is outside \[0, 1\]/],
    ['low.csv', `${HEADER}a,1,x,acc,-0.3\n`, /low\.csv:2: acc -0\.3 is outside \[0, 1\]/],
    // a duplicate in a metric that is not analysed is still a duplicate
    ['dup.csv', `${HEADER}a,1,x,accuracy,0.5\na,1,x,f1,0.4\na,1,x,f1,0.6\n`,
      /dup\.csv:4: duplicate score for run "a", step 1, test set "x", metric "f1" \(first given at .*dup\.csv:3\)/],
    ['quote.csv', `${HEADER}a,1,x,accuracy,0.5\na,2,"x,accuracy,0.5\na,3,x,accuracy,0.5\na,4,x,accuracy,0.5\n`,
      /quote\.csv:3: a quoted field is never closed: it opens on this line/],
    ['fake.sqlite', 'this is not a database\n', /fake\.sqlite: not an SQLite database/],
    ['scores.txt', HEADER, /scores\.txt: cannot tell what this is from "\.txt"; expected a genstudy results store/],
  ];
  for (const [name, text, expected] of cases) {
    writeFileSync(join(dir, name), text);
    const r = await genstudy(['analyze', join(dir, name), '--control', 'x']);
    assert.equal(r.code, 2, `${name}: ${r.stderr}`);
    assert.match(r.stderr, expected, name);
    assert.doesNotMatch(r.stderr, /set format|format option/, `${name}: analyze has no format option`);
    assert.equal(r.stderr.trim().split('\n').length, 1, `${name}: one line`);
  }
  // a loss is not a fraction: any value is fine
  writeFileSync(join(dir, 'loss.csv'), `${HEADER}a,1,x,loss,2.7\n`);
  const loss = await genstudy(['analyze', join(dir, 'loss.csv'), '--control', 'x', '--dry-run']);
  assert.equal(loss.code, 0, loss.stderr);
});

test('empty and NaN values, as pandas writes them, are missing scores with a note; a set lacking the metric is named', async (t) => {
  const dir = tempDir(t);
  const rows = simulateScores({ seed: 3, runs: 1, steps: 12 });
  const holes = rows.map((r, i) => (i === 7 ? { ...r, value: 'NaN' } : i === 20 ? { ...r, value: '' } : r));
  // a test set scored only with another metric
  holes.push({ ...rows[0], test_set: 'bleu-only', metric: 'bleu', value: 0.2 } as (typeof holes)[number]);
  writeCsv(join(dir, 's.csv'), holes);
  const r = await genstudy(
    ['analyze', join(dir, 's.csv'), '--control', 'in-domain', '--metric', 'accuracy', '--calibration', '0', '--no-robustness']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /2 row\(s\) with an empty or NaN value read as missing scores \(first at .*s\.csv:9\)/);
  assert.match(r.stderr, /step\(s\) left out because some test set has no score there/);
  assert.match(r.stderr, /1 test set\(s\) have no "accuracy" scores and are left out: bleu-only \(has bleu\)/);
});

test('an unknown --test-set lists the sets the input has', async (t) => {
  const dir = tempDir(t);
  writeCsv(join(dir, 's.csv'), simulateScores({ seed: 1, runs: 1, steps: 10 }));
  const r = await genstudy(['analyze', join(dir, 's.csv'), '--control', 'in-domain', '--test-set', 'overlap-broken', 'foo']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, new RegExp(/--test-set foo: .*s\.csv has no scores for "foo" /.source +
    /\(it has: in-domain, negation-broken, negation-consistent, overlap-broken, overlap-consistent, vocabulary-shift\)/.source));
  const rep = await genstudy(['report', join(dir, 's.csv'), '--control', 'in-domain', '--test-set', 'foo', '--out', join(dir, 'rep')]);
  assert.equal(rep.code, 2, rep.stderr);
  assert.match(rep.stderr, /has no scores for "foo" \(it has: in-domain/);
});
