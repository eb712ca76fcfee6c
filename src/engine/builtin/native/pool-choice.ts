// Which onnxruntime thread pool the native kernels run on: the sessions' own pools, whose idle
// threads sleep, or the environment's shared pool, whose idle threads spin (ort.ts). A training step
// runs thousands of short onnxruntime calls with wasm and JavaScript work between them; a sleeping
// thread has to be woken for each call, a spinning one is already there. Spinning costs the CPU it
// burns while the main thread works alone, which scoring (longer calls, fewer gaps) does not win
// back, so only training steps use the shared pool. Measured figures: src/engine/README.md.
import type { ThreadPool } from './ort.ts';
import { forgetPackedWeights } from './packed-weights.ts';

let trainingDepth = 0;

/**
 * Runs `step` (a training step) with the native kernels on the shared, spinning pool. The weights
 * packed for inference are freed first: the step changes them, and its memory is its own.
 */
export async function onTrainingPool<T>(step: () => Promise<T>): Promise<T> {
  forgetPackedWeights();
  trainingDepth++;
  try {
    return await step();
  } finally {
    trainingDepth--;
  }
}

/** The pool a native kernel called now runs on. */
export function poolNow(): ThreadPool {
  return trainingDepth > 0 ? 'shared' : 'own';
}
