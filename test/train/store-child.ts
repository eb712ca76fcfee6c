// Child process for the store-agreement tests: trains a tiny model with a results store (as
// `genstudy train --store` does) and prints the steps of the checkpoints its summary lists, as JSON.
// Usage: node --import tsx store-child.ts <model dir> <out dir> <store file> [no-resume]
import { generateSuite } from '../../src/synth/index.ts';
import { ResultStore } from '../../src/store/result-store.ts';
import { train } from '../../src/train/index.ts';

const [model, outDir, storeFile, mode] = process.argv.slice(2);
const suite = generateSuite({ seed: 7, trainSize: 160, testSize: 20 });
const store = ResultStore.open(storeFile);
try {
  const result = await train({
    model, outDir, task: suite.task, train: suite.train, method: 'full', lr: 3e-3, batchSize: 8, maxSteps: 8,
    checkpoints: { every: 3 }, store, run: 'r', resume: mode !== 'no-resume',
  });
  process.stdout.write(JSON.stringify(result.checkpoints.map((c) => c.step)) + '\n');
} finally {
  store.close();
}
