// A process on the native path (onnxruntime through koffi): it initialises the engine, runs a
// product in onnxruntime on each of its thread pools, optionally lingers (onnxruntime's telemetry uploader looked up its host
// about 9 s after the library loaded), then ends by itself, so that Node's teardown (which
// finalises koffi's library handles) runs as it does after every genstudy command.
// Prints "native" or "wasm: <why the native path is off>".
// Usage: node --import tsx native-child.ts [linger ms]
import * as tf from '@tensorflow/tfjs-core';
import { initBackend, onTrainingPool } from '../../src/engine/index.ts';
import { nativeMatMulActive, nativeMatMulStats } from '../../src/engine/builtin/native/matmul-kernel.ts';
import { nativeLoadError } from '../../src/engine/builtin/native/ort.ts';

await initBackend();
if (!nativeMatMulActive()) {
  process.stdout.write(`wasm: ${nativeLoadError() || tf.getBackend()}\n`);
} else {
  const a = tf.ones([64, 64]);
  await tf.matMul(a, a).data();
  // And on the shared pool a training step uses, so that its (spinning) threads are there at exit too.
  await onTrainingPool(() => tf.matMul(a, a).data());
  if (nativeMatMulStats.native < 2) throw new Error('the products did not run in onnxruntime');
  process.stdout.write('native\n');
}
const linger = Number(process.argv[2] ?? 0);
if (linger > 0) await new Promise((r) => setTimeout(r, linger));
