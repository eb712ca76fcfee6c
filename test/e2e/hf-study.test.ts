// One study file, the real-scale path in miniature: the same method trained on the built-in trainer
// and on the hf backend (transformers' Trainer through runner.py), every checkpoint evaluated
// through servers genstudy starts itself on each checkpoint (evaluation.serve, here genstudy serve
// standing in for vLLM). The two runs must agree: the same training log and the same scores at
// every step, step 0 being the base model. Slow: `npm run test:e2e`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseStudy } from '../../src/config/load.ts';
import { runStudy } from '../../src/pipeline/run-study.ts';
import { ResultStore } from '../../src/store/result-store.ts';
import { silentProgress } from '../../src/train/index.ts';
import { NO_PROGRESS } from '../../src/evaluate/index.ts';
import { hfPython } from './hf-python.ts';
import { tinyStudyYaml } from '../support/tiny-study.ts';

const env = hfPython();
const skip = 'skip' in env ? env.skip : false;
const repoRoot = path.resolve(import.meta.dirname, '../..');

const study = (python: string) => tinyStudyYaml({
  name: 'tiny-hf', trainSize: 48, testSize: 12,
  methods: [
    '{ name: builtin, kind: ft, lr: 0.01, steps: 6, batchSize: 8, gradAccum: 2, warmupRatio: 0.2 }',
    '{ name: hf, kind: ft, backend: hf, lr: 0.01, steps: 6, batchSize: 8, gradAccum: 2, warmupRatio: 0.2 }',
  ],
  rest: `seeds: [1]
checkpoints: { every: 3 }
hf: { launcher: python, python: ${JSON.stringify(python)} }
evaluation:
  control: in-domain
  testSets: ["synthetic:in-domain,negation-broken"]
  serve: { command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(path.join(repoRoot, 'bin/genstudy.js'))}, serve, ` +
  `"{model}", --port, "{port}"], startupSeconds: 120 }`,
});

test('a study trains one method on each backend; checkpoints are evaluated through servers it starts; the two runs agree', { skip }, async (t) => {
  const python = 'python' in env ? env.python : '';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'genstudy-hf-study-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'tiny-hf.yaml');
  fs.writeFileSync(file, study(python));
  const lines: string[] = [];
  const r = await runStudy(parseStudy(study(python), file), file,
    { log: (l) => lines.push(l), trainProgress: silentProgress, evalProgress: NO_PROGRESS });
  assert.ok(lines.some((l) => /genstudy: serve: starting .* serve .*checkpoint-3/.test(l)), 'a server was started on a full checkpoint');
  const store = ResultStore.open(r.paths.store, { readonly: true });
  try {
    const [a, b] = ['tiny--synthetic--builtin', 'tiny--synthetic--hf'];
    const logA = store.trainingLog(a);
    const logB = store.trainingLog(b);
    assert.deepEqual(logB.map((e) => e.step), logA.map((e) => e.step), `hf log ${JSON.stringify(logB)}; built-in log ${JSON.stringify(logA)}`);
    for (const e of logB) {
      const want = logA.find((x) => x.step === e.step)!;
      assert.ok(Math.abs(e.loss! - want.loss!) < 1e-4, `step ${e.step}: hf loss ${e.loss}, built-in ${want.loss}`);
    }
    const scores = (run: string) => store.scores({ run, metric: 'accuracy' }).map((s) => [s.step, s.testSet, s.value] as const).sort((x, y) =>
      x[0] - y[0] || x[1].localeCompare(y[1]));
    const sa = scores(a);
    const sb = scores(b);
    assert.deepEqual(sb.map((s) => [s[0], s[1]]), sa.map((s) => [s[0], s[1]]), 'the same steps (0 = the base model) and test sets');
    assert.deepEqual([...new Set(sb.map((s) => s[0]))], [0, 3, 6]);
    for (let i = 0; i < sa.length; i++)
      assert.ok(Math.abs(sa[i][2] - sb[i][2]) <= 1 / 12 + 1e-9, `step ${sa[i][0]} ${sa[i][1]}: ${sa[i][2]} vs ${sb[i][2]}`);
  } finally {
    store.close();
  }
});
