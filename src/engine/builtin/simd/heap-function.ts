// A hand-written kernel's exported function, instantiated over tfjs-backend-wasm's own memory (the
// module imports it as env.memory, so the kernel reads and writes tensors where they lie) once per
// memory object: a new backend instance (tests that reset tfjs) gets a new instance of the module.
import * as tf from '@tensorflow/tfjs-core';
import type { WasmBackend } from '../wasm-backend.ts';

/** `name` of the module `build` encodes, as a function over the current wasm backend's memory. */
export function heapFunction<F>(build: () => Uint8Array<ArrayBuffer>, name: string): (backend?: unknown) => F {
  let cached: { memory: WebAssembly.Memory; fn: F } | undefined;
  return (backend = tf.backend()) => {
    const memory = (backend as WasmBackend).wasm.asm.memory;
    if (cached?.memory !== memory) {
      const exports = new WebAssembly.Instance(new WebAssembly.Module(build()), { env: { memory } }).exports;
      cached = { memory, fn: exports[name] as F };
    }
    return cached.fn;
  };
}
