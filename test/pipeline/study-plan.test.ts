// run --dry-run's plan: read from the study file alone, the runs expandStudy makes with their
// optimiser steps and the checkpoints their policy saves; unknown where the data's size decides.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { genstudy } from '../support/genstudy-in-process.ts';
import { loadStudyFile } from '../../src/config/load.ts';
import { checkpointSteps } from '../../src/train/policy.ts';
import { formatStudyPlan, planStudy } from '../../src/pipeline/study-plan.ts';

const examples = path.resolve(import.meta.dirname, '../../examples');

test('the demo: 6 runs of 400 steps (2 training variants x 3 seeds), each checkpoint the policy saves, 2400 steps in all', () => {
  const study = loadStudyFile(path.join(examples, 'demo.yaml'));
  const plan = planStudy(study);
  const saved = checkpointSteps(study.checkpoints, 400).length;
  assert.deepEqual(plan.map((r) => [r.seed, r.steps, r.checkpoints, r.cells]),
    [[1, 400, saved, 1], [2, 400, saved, 1], [3, 400, saved, 1], [1, 400, saved, 1], [2, 400, saved, 1], [3, 400, saved, 1]]);
  const text = formatStudyPlan(study, plan);
  assert.match(text.at(-1)!, new RegExp(`^in all: 2400 optimiser steps; ${6 * saved} evaluations of each test set`));
  for (const l of text) assert.ok(l.length <= 120, l);
});

test('study A trains for epochs over data of unstated size: steps and checkpoints unknown, and the totals say "at least"', () => {
  const study = loadStudyFile(path.join(examples, 'study-a.yaml'));
  const plan = planStudy(study);
  assert.ok(plan.length >= 3 && plan.every((r) => r.steps === undefined && r.checkpoints === undefined));
  const text = formatStudyPlan(study, plan).join('\n');
  assert.match(text, /in all: at least 0 optimiser steps/);
  assert.match(text, /"\?": the steps follow from the training data's size/);
});

test('study B: base runs are one evaluation with no steps; trained runs their stated steps; two prompts per cell', () => {
  const study = loadStudyFile(path.join(examples, 'study-b.yaml'));
  const plan = planStudy(study);
  const base = plan.filter((r) => r.method.startsWith('base'));
  assert.ok(base.length > 0 && base.every((r) => r.steps === 0 && r.checkpoints === 1));
  assert.ok(plan.filter((r) => !r.method.startsWith('base')).every((r) => r.steps !== undefined && r.steps > 0));
  assert.ok(plan.every((r) => r.cells === 2), 'Prompt-1 and Prompt-2');
  assert.doesNotMatch(formatStudyPlan(study, plan).join('\n'), /control undefined/);
});

test('genstudy run --dry-run prints the plan and stops; --only narrows it, an unknown run is exit 2 naming the runs', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'genstudy-dry-run-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const r = await genstudy(['run', path.join(examples, 'demo.yaml'), '--dry-run', '--out', path.join(dir, 'out')]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^study "demo": 6 run\(s\)/);
  assert.ok(!fs.existsSync(path.join(dir, 'out')), 'nothing written');
  const one = await genstudy(['run', path.join(examples, 'demo.yaml'), '--dry-run', '--only', 'tiny-gpt2--variant-b--ft--seed2']);
  assert.equal(one.stdout.split('\n').filter((l) => /^ {2}tiny-gpt2/.test(l)).length, 1);
  const bad = await genstudy(['run', path.join(examples, 'demo.yaml'), '--dry-run', '--only', 'nope']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--only: no run nope in the study; it has tiny-gpt2--variant-a--ft--seed1/);
});
