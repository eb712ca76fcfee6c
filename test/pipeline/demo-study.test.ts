// The demo's study file (examples/demo.yaml) against a trap it once fell into: under warm-up,
// Hugging Face's schedule (src/train/schedule.ts) gives the first optimiser step learning rate 0, so
// a checkpoint after step 1 holds the same weights as step 0 and repeats its scores.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEMO_STUDY } from '../../src/cli/demo.ts';
import { loadStudyFile } from '../../src/config/load.ts';
import { checkpointSteps, lrMultiplier, warmupStepsOf } from '../../src/train/index.ts';

test("the demo's every checkpoint after the start follows a step with a learning rate above 0", () => {
  const study = loadStudyFile(DEMO_STUDY);
  let checked = 0;
  for (const method of study.methods) {
    const total = method.steps!;
    const warmup = warmupStepsOf(total, 0, method.warmupRatio);
    const steps = checkpointSteps(study.checkpoints, total);
    for (const s of steps.filter((x) => x > 0)) {
      // The weights at checkpoint s differ from those at the checkpoint before it only if some step in between had lr > 0.
      const before = steps[steps.indexOf(s) - 1] ?? 0;
      const moved = Array.from({ length: s - before }, (_, i) => lrMultiplier(method.schedule, before + i, total, warmup)).some((m) => m > 0);
      assert.ok(moved, `${method.name}: checkpoint ${s} repeats checkpoint ${before} (learning rate 0 in between)`);
      checked++;
    }
  }
  assert.ok(checked >= 20, `${checked} checkpoints checked`);
});
