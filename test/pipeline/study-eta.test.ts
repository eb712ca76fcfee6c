// The study's time left, driven as run-study drives it with a simulated clock: the demo's shape
// (three runs of 400 steps, 21 checkpoints dense early: the old elapsed-share estimate said 30 min
// at 8 s of a 2-minute study), a study with no training, and a resumed run. The estimate must wait
// for a basis, then stay within 2x of the simulated truth and never climb.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StudyEta } from '../../src/pipeline/study-eta.ts';
import { checkpointSteps, type CheckpointPolicy } from '../../src/train/index.ts';

const DEMO_POLICY: CheckpointPolicy = { atStart: true, logSpaced: 14, every: 50, atEnd: true };

interface Costs { stepMs: (step: number) => number; answerMs: number; cachedMs: number; saveMs?: number; slowdown?: (ms: number) => number }

/** Runs `runs` training runs through the estimator as run-study would; returns (time, estimate) samples and the end time. */
function simulateTraining(policy: CheckpointPolicy, runs: number, steps: number, answers: number, costs: Costs) {
  const clock = { t: 0 };
  const eta = new StudyEta(() => clock.t);
  const samples: { t: number; left: number | undefined }[] = [];
  const sample = () => samples.push({ t: clock.t, left: eta.secondsLeft() });
  const slow = () => costs.slowdown?.(clock.t) ?? 1;
  const evaluate = (at: readonly number[], cached: boolean) => {
    eta.startEvaluation(at, cached ? 0 : answers * at.length);
    for (let done = 0; done < answers * at.length; done += 100) {
      clock.t += 100 * (cached ? costs.cachedMs : costs.answerMs) * slow();
      eta.evaluated(100, !cached);
      sample();
    }
    eta.stopEvaluation();
  };
  const saveAt = new Set(checkpointSteps(policy, steps));
  for (let run = 0; run < runs; run++) {
    eta.startRun(run, runs, policy);
    sample();
    eta.startTraining(steps, 0);
    const save = (step: number) => {
      clock.t += (costs.saveMs ?? 0) * slow();
      evaluate([step], false);
    };
    if (saveAt.has(0)) save(0);
    for (let step = 1; step <= steps; step++) {
      clock.t += costs.stepMs(step) * slow();
      if (step % 5 === 0) { eta.trainedTo(step); sample(); }
      if (saveAt.has(step)) save(step);
    }
    evaluate([...saveAt], true);
  }
  return { samples, end: clock.t };
}

/** Checks the Done-when: no estimate without a basis, then within 2x of the truth and never rising. */
function assertHonest(samples: { t: number; left: number | undefined }[], end: number, from = 0): void {
  assert.equal(samples[0].left, undefined, 'no estimate before anything was measured');
  let lowest = Infinity;
  let checked = 0;
  for (const { t, left } of samples) {
    if (left === undefined) continue;
    const truth = (end - t) / 1000;
    if (t >= from && truth >= 5) {
      checked++;
      assert.ok(left >= truth / 2 && left <= truth * 2, `at ${(t / 1000).toFixed(1)} s: estimate ${left.toFixed(1)} s, truth ${truth.toFixed(1)} s`);
    }
    assert.ok(left <= lowest * 1.5 + 1, `at ${(t / 1000).toFixed(1)} s the estimate rose to ${left.toFixed(1)} s from ${lowest.toFixed(1)} s`);
    lowest = Math.min(lowest, left);
  }
  assert.ok(checked > 20, `compared with the truth ${checked} times`);
}

test("the demo's shape: an estimate within 2x of the truth once steps and a checkpoint are measured, never rising", () => {
  // The demo on 2 loaded cores: ~37 ms a step (the first one slow: the kernels warm up, ~0.5 s),
  // 0.33 ms an answer, 1400 answers a checkpoint, the run's final pass all from the cache.
  const { samples, end } = simulateTraining(DEMO_POLICY, 3, 400, 1400, {
    stepMs: (s) => (s === 1 ? 500 : s % 2 ? 30 : 44), answerMs: 0.33, cachedMs: 0.01,
  });
  assertHonest(samples, end);
  const at10 = samples.find((x) => x.t >= 10_000)!;
  assert.ok(at10.left !== undefined, 'an estimate by 10 s');
});

test('a machine whose load drops: the estimate follows the recent throughput', () => {
  // The demo's shape, everything 10x slower for the first 2 minutes (other jobs on the cores), as measured
  // on 2 shared cores; cumulative rates stayed 3x too long long after the load had gone.
  const { samples, end } = simulateTraining(DEMO_POLICY, 3, 400, 1400, {
    stepMs: (s) => (s === 1 ? 500 : 37), answerMs: 0.33, cachedMs: 0.01, slowdown: (t) => (t < 120_000 ? 10 : 1),
  });
  assertHonest(samples, end, 120_000 + 45_000);
});

test('writing a checkpoint costs as much as several steps: counted per checkpoint, not per step', () => {
  // Measured on the demo: the dense early checkpoints made the save look like step time, and the
  // first estimate read 4x the truth. Here a save costs 10 steps.
  const { samples, end } = simulateTraining(DEMO_POLICY, 3, 400, 1400, {
    stepMs: () => 37, answerMs: 0.33, cachedMs: 0.01, saveMs: 370,
  });
  assertHonest(samples, end);
  const at10 = samples.find((x) => x.t >= 10_000)!;
  const truth = (end - at10.t) / 1000;
  assert.ok(at10.left! < 1.25 * truth && at10.left! > 0.8 * truth, `at 10 s: ${at10.left} s, truth ${truth} s`);
});

test('evaluation slower than training, and every checkpoint evenly spaced', () => {
  const { samples, end } = simulateTraining({ atStart: true, every: 20, atEnd: true }, 2, 200, 3000, {
    stepMs: () => 20, answerMs: 2, cachedMs: 0,
  });
  assertHonest(samples, end);
});

test('runs without training: the first run\'s answers are the basis for the others', () => {
  const clock = { t: 0 };
  const eta = new StudyEta(() => clock.t);
  const samples: { t: number; left: number | undefined }[] = [];
  for (let run = 0; run < 4; run++) {
    eta.startRun(run, 4);
    samples.push({ t: clock.t, left: eta.secondsLeft() });
    eta.startEvaluation([0], 5000);
    for (let done = 0; done < 5000; done += 250) {
      clock.t += 250 * 4;
      eta.evaluated(250, true);
      samples.push({ t: clock.t, left: eta.secondsLeft() });
    }
    eta.stopEvaluation();
  }
  assertHonest(samples, clock.t);
});

test('a resumed run: steps and checkpoints done before are not counted as work ahead or as measured', () => {
  const clock = { t: 0 };
  const eta = new StudyEta(() => clock.t);
  eta.startRun(0, 1, { every: 100, atStart: true, atEnd: true });
  eta.startTraining(400, 300);
  assert.equal(eta.secondsLeft(), undefined, 'nothing measured yet');
  clock.t += 10_000;
  eta.trainedTo(350);
  // 50 steps measured; the checkpoint at 400 is ahead and no evaluation has been measured.
  assert.equal(eta.secondsLeft(), undefined, 'a checkpoint ahead whose cost is not measured');
  eta.startEvaluation([350], 0);
  eta.stopEvaluation();
  // The first evaluation that needs the model loads it and warms the kernels: slow, and left out.
  clock.t += 2_000;
  eta.startEvaluation([360], 1000);
  clock.t += 3_000;
  eta.evaluated(1000, true);
  eta.stopEvaluation();
  assert.equal(eta.secondsLeft(), undefined, 'the warm-up evaluation is no basis');
  clock.t += 2_000;
  eta.startEvaluation([380], 1000);
  clock.t += 1000;
  eta.evaluated(1000, true);
  eta.stopEvaluation();
  // 80 steps in 14 s of training (10 s, then 2 s and 2 s between evaluations): about 0.175 s a
  // step (older stretches weigh a little less); 1000 answers in 1 s (the warm-up evaluation left
  // out). Ahead: 20 steps and one checkpoint.
  const left = eta.secondsLeft()!;
  assert.ok(Math.abs(left - (20 * (14 / 80) + 1)) < 0.05 * left, String(left));
});
