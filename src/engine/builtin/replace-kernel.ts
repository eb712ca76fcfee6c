// Replacing one of tfjs-backend-wasm's kernels while keeping the original to fall back to: the
// engine's faster Slice / SplitV / Gather / Identity (wasm-kernels.ts) and the native path's
// BatchMatMul, Sum and SplitV (native/) each handle the cases they are for and hand the rest on.
import * as tf from '@tensorflow/tfjs-core';

export type KernelArgs = Parameters<tf.KernelFunc>[0];
type KernelResult = ReturnType<tf.KernelFunc>;

/**
 * Registers `kernelFunc` for the wasm backend's `name`, called with the kernel it replaces. Returns
 * false (and changes nothing) where the backend has no such kernel.
 */
export function replaceWasmKernel(
  name: string, kernelFunc: (args: KernelArgs, original: (args: KernelArgs) => KernelResult) => KernelResult,
): boolean {
  const original = tf.getKernel(name, 'wasm');
  if (!original) return false;
  tf.unregisterKernel(name, 'wasm');
  tf.registerKernel({ ...original, kernelFunc: (args) => kernelFunc(args, original.kernelFunc) });
  return true;
}
