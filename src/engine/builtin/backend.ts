// Choosing the compute path: tfjs-node when it is installed, else "native" (tfjs wasm with the matrix
// multiply run by onnxruntime-node, native/), else wasm alone, else the pure-JS cpu backend.
// GENSTUDY_BACKEND (node | native | wasm | cpu) overrides; GENSTUDY_THREADS (default 1) is the number
// of threads the native kernels may use (the wasm kernels run on one thread in Node regardless).
import * as tf from '@tensorflow/tfjs-core';
import { UserError } from '../../errors.ts';
import { registerWasmKernels } from './wasm-kernels.ts';
import { registerAdamWKernel } from './simd/adamw-kernel.ts';
import { registerDropoutMaskKernel } from './simd/dropout-mask-kernel.ts';
import { registerAddScaledKernel } from './simd/add-scaled-kernel.ts';
import { nativeMatMulActive, registerNativeMatMul } from './native/matmul-kernel.ts';
import { registerFusedOps } from './native/fused-ops.ts';

let ready: Promise<string> | undefined;
let started = false;
let nativeUnavailable = '';
const readyListeners = new Set<(path: string) => void>();

const PATHS = ['node', 'native', 'wasm', 'cpu'] as const;
type PathName = (typeof PATHS)[number];

const loaders: Record<PathName, () => Promise<unknown>> = {
  // A variable specifier keeps TypeScript from requiring tfjs-node, which is optional.
  node: () => import(['@tensorflow', 'tfjs-node'].join('/')),
  native: () => import('@tensorflow/tfjs-backend-wasm'),
  wasm: () => import('@tensorflow/tfjs-backend-wasm'),
  cpu: () => import('@tensorflow/tfjs-backend-cpu'),
};
const tfNames: Record<PathName, string> = { node: 'tensorflow', native: 'wasm', wasm: 'wasm', cpu: 'cpu' };

/** GENSTUDY_THREADS: threads for the native kernels (a positive integer; default 1). */
export function engineThreads(): number {
  const raw = process.env.GENSTUDY_THREADS?.trim();
  if (!raw) return 1;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new UserError(`GENSTUDY_THREADS=${raw}: expected a positive integer`);
  return n;
}

/** Sets up the tfjs backend once per process and returns its tfjs name ('tensorflow', 'wasm', 'cpu'). */
export function initBackend(): Promise<string> {
  ready ??= choose().then((name) => {
    started = true;
    for (const listener of readyListeners) listener(enginePath());
    return name;
  });
  return ready;
}

/**
 * Whether the engine has started in this process. Nothing starts it but its first use (loading a
 * model, training, serving), so a command that finds every answer in its store never does: a
 * resumed study reports "not needed" instead of spending seconds loading kernels it would not run.
 */
export function engineStarted(): boolean {
  return started;
}

/** Calls `listener` with enginePath() when the engine starts (not when it had already); returns the unsubscribe. */
export function onEngineStart(listener: (path: string) => void): () => void {
  readyListeners.add(listener);
  return () => readyListeners.delete(listener);
}

/**
 * Which path computes, in words, for logs and reports: 'native (onnxruntime kernels, 2 threads; other
 * ops wasm)', 'wasm', 'wasm (native unavailable: ...)', 'tensorflow' or 'cpu'. Call after initBackend.
 */
export function enginePath(): string {
  const backend = tf.getBackend();
  if (backend !== 'wasm') return backend;
  if (nativeMatMulActive()) return `native (onnxruntime kernels, ${engineThreads()} thread${engineThreads() > 1 ? 's' : ''}; other ops wasm)`;
  return nativeUnavailable ? `wasm (native unavailable: ${nativeUnavailable})` : 'wasm';
}

async function start(name: PathName): Promise<boolean> {
  await loaders[name]();
  if (!(await tf.setBackend(tfNames[name]))) return false;
  await tf.ready();
  if (tf.getBackend() === 'wasm') {
    registerWasmKernels();
    registerAdamWKernel();
    registerDropoutMaskKernel();
    registerAddScaledKernel();
  }
  if (name === 'native') {
    registerNativeMatMul(engineThreads());
    registerFusedOps();
  }
  return true;
}

async function choose(): Promise<string> {
  engineThreads(); // a bad GENSTUDY_THREADS is an error, not a silent fall-back to wasm
  const wanted = process.env.GENSTUDY_BACKEND?.trim();
  if (wanted) {
    if (!(PATHS as readonly string[]).includes(wanted)) throw new UserError(`GENSTUDY_BACKEND=${wanted}: expected one of ${PATHS.join(', ')}`);
    let ok: boolean;
    try {
      ok = await start(wanted as PathName);
    } catch (err) {
      throw new UserError(`GENSTUDY_BACKEND=${wanted}: the backend cannot be loaded (${(err as Error).message.split('\n')[0]})`);
    }
    if (!ok) throw new UserError(`GENSTUDY_BACKEND=${wanted}: the backend failed to start`);
    return tf.getBackend();
  }
  for (const name of PATHS) {
    try {
      if (await start(name)) return tf.getBackend();
    } catch (err) {
      // Not installed or not loadable here: try the next one (native falls back to wasm alone).
      if (name === 'native') nativeUnavailable = (err as Error).message.split('\n')[0];
    }
  }
  throw new Error(`no tfjs backend could be started (tried ${PATHS.join(', ')})`);
}
