// Runs are listed in natural order everywhere: numbers in names compared as numbers (run-2 before
// run-10) and model sizes with units as the counts they stand for (Pythia's 70m, 160m, 410m, 1.4b,
// 2.8b), where code-unit order gave 1.4b, 160m, 2.8b, 410m, 70m.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { compareRunNames } from '../../src/analyze/run-order.ts';
import { simulateScores } from '../support/simulated-scores.ts';
import { genstudy } from '../support/genstudy-in-process.ts';
import { tempDir, writeCsv } from './helpers.ts';

const PYTHIA = ['pythia-70m', 'pythia-160m', 'pythia-410m', 'pythia-1.4b', 'pythia-2.8b'];

test('sizes with units compare as counts, other numbers as numbers, and the order is total', () => {
  assert.deepEqual([...PYTHIA].reverse().sort(compareRunNames), PYTHIA);
  assert.deepEqual(['run-10', 'run-2', 'run-1'].sort(compareRunNames), ['run-1', 'run-2', 'run-10']);
  assert.deepEqual(['opt-1.3b-mnli', 'opt-125m-mnli', 'opt-350M-mnli'].sort(compareRunNames), ['opt-125m-mnli', 'opt-350M-mnli', 'opt-1.3b-mnli']);
  assert.deepEqual(['seed-b', 'seed-a', 'seed-10', 'seed-9'].sort(compareRunNames), ['seed-9', 'seed-10', 'seed-a', 'seed-b']);
  // a letter after the unit makes it a word, not a size: 12months is twelve and text
  assert.deepEqual(['12months', '3months'].sort(compareRunNames), ['3months', '12months']);
  // equal as numbers, different as text: still ordered, the same way both ways round
  assert.equal(Math.sign(compareRunNames('run-07', 'run-7')), -Math.sign(compareRunNames('run-7', 'run-07')));
  assert.notEqual(compareRunNames('run-07', 'run-7'), 0);
});

test('analyze lists runs, in its JSON, its table and its reading line, in that order; so does the report', async (t) => {
  const dir = tempDir(t);
  const csv = join(dir, 'pythia.csv');
  const names = new Map(['model-a', 'model-b', 'model-c', 'model-d', 'model-e'].map((m, i) => [m, PYTHIA[4 - i]]));
  writeCsv(csv, simulateScores({ seed: 9, runs: 5, steps: 12 }).map((x) => ({ ...x, run: names.get(x.run)! })));

  const json = await genstudy(['analyze', csv, '--control', 'in-domain', '--format', 'json', '--calibration', '0', '--no-robustness']);
  assert.equal(json.code, 0, json.stderr);
  assert.deepEqual(JSON.parse(json.stdout).runs.map((r: { run: string }) => r.run), PYTHIA);
  assert.match(json.stderr, /5 run\(s\) \(pythia-70m, pythia-160m, pythia-410m, pythia-1\.4b, \.\.\. \(5\)\)/);

  const table = await genstudy(['analyze', csv, '--control', 'in-domain', '--calibration', '0', '--no-robustness']);
  assert.equal(table.code, 0, table.stderr);
  const at = PYTHIA.map((p) => table.stdout.indexOf(`run ${p}:`));
  assert.ok(at.every((i) => i >= 0), table.stdout);
  assert.deepEqual([...at].sort((a, b) => a - b), at, 'the table lists them smallest first');

  const out = join(dir, 'report');
  const report = await genstudy(['report', csv, '--control', 'in-domain', '--out', out, '--calibration', '0', '--no-robustness']);
  assert.equal(report.code, 0, report.stderr);
  const runs = JSON.parse(readFileSync(join(out, 'runs.json'), 'utf8')) as { run: string }[];
  assert.deepEqual(runs.map((r) => r.run), PYTHIA);
});
