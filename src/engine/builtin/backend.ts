// Choosing the tfjs backend: tfjs-node when it is installed, else wasm, else cpu; GENSTUDY_BACKEND
// (node | wasm | cpu) overrides.
import * as tf from '@tensorflow/tfjs-core';
import { UserError } from '../../errors.ts';
import { registerWasmKernels } from './wasm-kernels.ts';

let ready: Promise<string> | undefined;

const loaders: Record<string, () => Promise<unknown>> = {
  // A variable specifier keeps TypeScript from requiring tfjs-node, which is optional.
  node: () => import(['@tensorflow', 'tfjs-node'].join('/')),
  wasm: () => import('@tensorflow/tfjs-backend-wasm'),
  cpu: () => import('@tensorflow/tfjs-backend-cpu'),
};
const tfNames: Record<string, string> = { node: 'tensorflow', wasm: 'wasm', cpu: 'cpu' };

/** Sets up the tfjs backend once per process and returns its tfjs name ('tensorflow', 'wasm', 'cpu'). */
export function initBackend(): Promise<string> {
  ready ??= choose();
  return ready;
}

async function choose(): Promise<string> {
  const wanted = process.env.GENSTUDY_BACKEND?.trim();
  if (wanted) {
    if (!(wanted in loaders)) throw new UserError(`GENSTUDY_BACKEND=${wanted}: expected one of ${Object.keys(loaders).join(', ')}`);
    try {
      await loaders[wanted]();
    } catch (err) {
      throw new UserError(`GENSTUDY_BACKEND=${wanted}: the backend cannot be loaded (${(err as Error).message.split('\n')[0]})`);
    }
    if (!(await tf.setBackend(tfNames[wanted]))) throw new UserError(`GENSTUDY_BACKEND=${wanted}: the backend failed to start`);
    await tf.ready();
    return started();
  }
  for (const name of ['node', 'wasm', 'cpu']) {
    try {
      await loaders[name]();
      if (await tf.setBackend(tfNames[name])) {
        await tf.ready();
        return started();
      }
    } catch {
      // Not installed or not loadable here: try the next one.
    }
  }
  throw new Error('no tfjs backend could be started (tried tfjs-node, wasm, cpu)');
}

function started(): string {
  if (tf.getBackend() === 'wasm') registerWasmKernels();
  return tf.getBackend();
}
