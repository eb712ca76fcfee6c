// docs/example-pythia.md's numbers are genstudy's output on examples/pythia-evals (EleutherAI's
// files as published): every line of the page's output blocks must appear in what the page's
// command prints, so the page cannot drift from the code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { readScoreInput } from '../../src/analyze/read-scores.ts';
import { genstudy } from '../support/genstudy-in-process.ts';
import { repoRoot } from './helpers.ts';

const folder = join(repoRoot, 'examples/pythia-evals');
const PYTHIA_STEPS = [0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1000, 3000, ...Array.from({ length: 14 }, (_, i) => 13000 + 10000 * i)];

test('the Pythia files are read as published: run from the folder, step from the file name', async () => {
  const { rows, description } = await readScoreInput(folder);
  assert.match(description, /^lm-evaluation-harness 0\.3 output, 135 file\(s\); run from the folder path, step from the file name$/);
  const runs = [...new Set(rows.map((r) => r.run))].sort();
  assert.deepEqual(runs,
    ['pythia-1.4b/zero-shot', 'pythia-160m/zero-shot', 'pythia-2.8b/zero-shot', 'pythia-410m/zero-shot', 'pythia-70m/zero-shot']);
  for (const run of runs) {
    assert.deepEqual([...new Set(rows.filter((r) => r.run === run).map((r) => r.step))].sort((a, b) => a - b), PYTHIA_STEPS, run);
  }
  // one value checked against the published file itself (160m_step143000.json, results.arc_easy.acc)
  const published = JSON.parse(readFileSync(join(folder, 'pythia-160m/zero-shot/160m_step143000.json'), 'utf8')).results.arc_easy.acc;
  const read = rows.find((r) => r.run === 'pythia-160m/zero-shot' && r.step === 143000 && r.testSet === 'arc_easy' && r.metric === 'acc');
  assert.equal(read?.value, published);
  assert.equal(read?.origin, `${join(folder, 'pythia-160m/zero-shot/160m_step143000.json')}, field "results.arc_easy.acc"`);
});

test('docs/example-pythia.md shows what its command prints', async () => {
  const page = readFileSync(join(repoRoot, 'docs/example-pythia.md'), 'utf8');
  const command = /```\nnpx genstudy (analyze [^`]+?)\n```/.exec(page)![1].replace(/\\\n\s*/g, '').split(/\s+/).filter(Boolean);
  const r = await genstudy(command);
  assert.equal(r.code, 0, r.stderr);
  const printed = `${r.stderr.replace(/^genstudy: /gm, '')}\n${r.stdout}`;
  const blocks = [...page.matchAll(/```\n([\s\S]*?)```/g)].map((m) => m[1]).filter((b) => !b.startsWith('npx '));
  const lines = blocks.flatMap((b) => b.split('\n')).filter((l) => l.trim() !== '');
  assert.ok(lines.length > 30, `the page's output blocks hold ${lines.length} lines`);
  for (const line of lines) assert.ok(printed.includes(line), `not in the output: ${line}`);
});
