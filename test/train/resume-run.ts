// The training the resume tests kill and resume: one home for its options, so the run killed in a
// child process (kill-child.ts) and the runs made in the test's own process are the same training.
import { generateSuite } from '../../src/synth/index.ts';
import { train, type TrainOptions } from '../../src/train/index.ts';

/** Full fine-tuning of `model` for 8 steps, a checkpoint every 3, into `outDir` (resuming what is there). */
export async function resumeRun(model: string, outDir: string, onStep?: TrainOptions['onStep']): Promise<void> {
  const suite = generateSuite({ seed: 7, trainSize: 160, testSize: 20 });
  await train({
    model, outDir, task: suite.task, train: suite.train, method: 'full', lr: 3e-3, batchSize: 8, maxSteps: 8, weightDecay: 0.01,
    warmupSteps: 2, checkpoints: { every: 3 }, onStep,
  });
}
