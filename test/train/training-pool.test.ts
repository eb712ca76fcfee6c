// Training steps run the native kernels on onnxruntime's shared, spinning pool; everything else (a
// checkpoint's evaluation between steps, scoring) on the sessions' own pools, whose idle threads
// sleep (engine/builtin/native/pool-choice.ts). The two pools give the same bits at the same thread count.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { enginePath, initBackend } from '../../src/engine/index.ts';
import { nativeMatMulActive } from '../../src/engine/builtin/native/matmul-kernel.ts';
import { nativeRunStats } from '../../src/engine/builtin/native/ort.ts';
import { train } from '../../src/train/index.ts';
import { repoRoot, smallSuite, tempDir, tinyModelDir } from './helpers.ts';

test('a training step runs its native kernels on the shared pool; evaluating a checkpoint between steps on the sessions\' own', async (t) => {
  await initBackend();
  if (!nativeMatMulActive()) {
    t.skip(`the native path is not in use here (${enginePath()})`);
    return;
  }
  const { suite } = await smallSuite();
  // Wide enough that the products go to onnxruntime (small ones stay on wasm).
  const model = await tinyModelDir('gpt2', { hidden: 128, layers: 1 });
  let last = { ...nativeRunStats };
  const since = () => {
    const d = { own: nativeRunStats.own - last.own, shared: nativeRunStats.shared - last.shared };
    last = { ...nativeRunStats };
    return d;
  };
  const steps: { own: number; shared: number }[] = [];
  const evaluations: { own: number; shared: number }[] = [];
  await train({
    model, outDir: tempDir(), task: suite.task, train: suite.train, method: 'full', lr: 1e-3, batchSize: 8, maxSteps: 2,
    checkpoints: { every: 1, atStart: false },
    onCheckpoint: async ({ model: m }) => {
      steps.push(since());
      await m.logits([[1, 5, 9, 7, 3, 4, 8, 6, 2, 5, 9, 7], [1, 8, 5, 6, 7, 3, 4]]);
      evaluations.push(since());
    },
  });
  assert.equal(steps.length, 2);
  for (const [i, s] of steps.entries()) {
    assert.ok(s.shared > 0, `step ${i + 1} ran on the shared pool (${JSON.stringify(s)})`);
    assert.equal(s.own, 0, `step ${i + 1} ran nothing on a session's own pool`);
  }
  for (const [i, e] of evaluations.entries()) {
    assert.ok(e.own > 0, `checkpoint ${i + 1}'s evaluation ran on the sessions' own pools (${JSON.stringify(e)})`);
    assert.equal(e.shared, 0, `checkpoint ${i + 1}'s evaluation ran nothing on the shared pool`);
  }
});

test('at two threads, a product on the shared pool has the same bits as on a session\'s own pool', async (t) => {
  // Thread counts are fixed per process: a child process at GENSTUDY_THREADS=2.
  const code = `
    const tf = await import('@tensorflow/tfjs-core');
    const { initBackend, enginePath } = await import('./src/engine/builtin/backend.ts');
    const { onTrainingPool } = await import('./src/engine/builtin/native/pool-choice.ts');
    const { nativeRunStats } = await import('./src/engine/builtin/native/ort.ts');
    await initBackend();
    const a = tf.randomNormal([512, 576], 0, 1, 'float32', 1);
    const b = tf.randomNormal([576, 1536], 0, 1, 'float32', 2);
    const c = tf.randomNormal([512, 1536], 0, 1, 'float32', 3);
    // A plain product, and one with a transposed first operand (transpose + product, matmul-kernel.ts).
    const products = () => [tf.matMul(a, b).dataSync(), tf.matMul(a, c, true, false).dataSync()];
    const own = products();
    const before = { ...nativeRunStats };
    const shared = await onTrainingPool(async () => products());
    const bits = (x) => Buffer.from(x.buffer, x.byteOffset, x.byteLength).toString('base64');
    console.log(JSON.stringify({
      path: enginePath(), same: own.map((o, i) => bits(o) === bits(shared[i])),
      sharedRuns: nativeRunStats.shared - before.shared, ownRuns: nativeRunStats.own - before.own,
    }));
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    cwd: repoRoot, env: { ...process.env, GENSTUDY_BACKEND: '', GENSTUDY_THREADS: '2' }, maxBuffer: 1 << 24,
  });
  const r = JSON.parse(stdout.trim().split('\n').pop()!) as { path: string; same: boolean[]; sharedRuns: number; ownRuns: number };
  if (!r.path.startsWith('native')) {
    t.skip(`the native path is not in use here (${r.path})`);
    return;
  }
  assert.equal(r.path, 'native (onnxruntime kernels, 2 threads; other ops wasm)');
  assert.deepEqual(r.same, [true, true]);
  assert.ok(r.sharedRuns >= 3, `the products ran on the shared pool (${r.sharedRuns} runs)`);
  assert.equal(r.ownRuns, 0);
});
