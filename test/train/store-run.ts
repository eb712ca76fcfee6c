// The training the store-agreement tests kill and resume: one home for its options, so the run
// killed in a child process (store-child.ts) and the runs made in the test's own process are the
// same training, recorded in a results store as `genstudy train --store` records it.
import { generateSuite } from '../../src/synth/index.ts';
import { ResultStore } from '../../src/store/result-store.ts';
import { train } from '../../src/train/index.ts';

/** Full fine-tuning for 8 steps, a checkpoint every 3, as run 'r' of `storeFile`; the steps of the checkpoints its summary lists. */
export async function storeRun(model: string, outDir: string, storeFile: string, resume = true): Promise<number[]> {
  const suite = generateSuite({ seed: 7, trainSize: 160, testSize: 20 });
  const store = ResultStore.open(storeFile);
  try {
    const result = await train({
      model, outDir, task: suite.task, train: suite.train, method: 'full', lr: 3e-3, batchSize: 8, maxSteps: 8,
      checkpoints: { every: 3 }, store, run: 'r', resume,
    });
    return result.checkpoints.map((c) => c.step);
  } finally {
    store.close();
  }
}
