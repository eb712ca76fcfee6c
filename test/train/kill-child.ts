// Child process for the resume test: trains a tiny model and, when asked, kills itself with SIGKILL
// right after a given step (no clean-up runs, as when the machine or an operator kills a job).
// Usage: node --import tsx kill-child.ts <model dir> <out dir> <kill after step | 0>
import { generateSuite } from '../../src/synth/index.ts';
import { train } from '../../src/train/index.ts';

const [model, outDir, killAt] = process.argv.slice(2);
const suite = generateSuite({ seed: 7, trainSize: 160, testSize: 20 });
await train({
  model, outDir, task: suite.task, train: suite.train, method: 'full', lr: 3e-3, batchSize: 8, maxSteps: 8, weightDecay: 0.01,
  warmupSteps: 2, checkpoints: { every: 3 },
  onStep: (e) => { if (e.step === Number(killAt)) process.kill(process.pid, 'SIGKILL'); },
});
