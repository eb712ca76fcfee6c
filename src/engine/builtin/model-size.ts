// Whether a model of a given architecture can be held here at all, decided from its config before
// any weight is allocated or read: a config with `hidden: 100000` must be a clear message, not
// "RangeError: Invalid typed array length" from deep inside an allocation.
// Bounds: one tensor at most 2^31 - 1 elements (tfjs computes sizes and offsets in int32, and the
// wasm backend's memory is 32-bit), all weights as float32 within this machine's memory, and
// within the wasm backend's 4 GiB heap when that backend runs the model.
import os from 'node:os';
import type { Arch, Family } from './families/family.ts';

export const MAX_TENSOR_ELEMENTS = 2 ** 31 - 1;
/** Far above any published model (the largest have under 200); checked first, so a typo does not build millions of tensor specs. */
const MAX_LAYERS = 10_000;
const WASM_HEAP_BYTES = 4 * 2 ** 30;

const gb = (bytes: number): string => `${(bytes / 2 ** 30).toFixed(bytes < 2 ** 30 ? 2 : 1)} GiB`;

/**
 * Why a model of this architecture cannot be loaded here, or undefined when it can. `backend` is
 * the tfjs backend's name when one will hold the weights ('wasm' adds its heap limit).
 */
export function modelSizeProblem(family: Family, arch: Arch, backend?: string): string | undefined {
  if (arch.layers > MAX_LAYERS) {
    return `${arch.layers} layers: more than genstudy can hold (at most ${MAX_LAYERS}; the largest published models have under 200)`;
  }
  let total = 0;
  for (const spec of family.params(arch)) {
    const n = spec.shape.reduce((a, b) => a * b, 1);
    if (!Number.isSafeInteger(n) || n > MAX_TENSOR_ELEMENTS) {
      return `tensor "${spec.name}" would have shape ${JSON.stringify(spec.shape)} (${n.toExponential(2)} values), ` +
        `more than one tensor can hold (${MAX_TENSOR_ELEMENTS})`;
    }
    total += n;
  }
  const bytes = total * 4;
  const memory = os.totalmem();
  if (bytes > memory) {
    return `a ${arch.modelType} model of ${total.toExponential(2)} parameters needs ${gb(bytes)} as float32, ` +
      `more than this machine's memory (${gb(memory)})`;
  }
  if (backend === 'wasm' && bytes > WASM_HEAP_BYTES) {
    return `a ${arch.modelType} model of ${total.toExponential(2)} parameters needs ${gb(bytes)} as float32, ` +
      "more than the wasm backend's 4 GiB memory " +
      '(install @tensorflow/tfjs-node, or evaluate it through a server: genstudy evaluate --remote)';
  }
  return undefined;
}
