// onnxruntime-node as a synchronous kernel provider. Its public API (InferenceSession.run) is a
// promise, which a tfjs kernel (synchronous) cannot wait for; underneath, the package's N-API binding
// runs a session synchronously, and that binding is what is used here. The CPU binaries (MLAS, with
// AVX-512 / AVX2 kernels chosen at run time) ship inside the npm package; its postinstall script
// only fetches CUDA parts and is kept off (package.json allowScripts).
//
// Tensors are handed over as views: an input is read where it lies (the wasm heap) and an output is
// written where tfjs wants it (a pre-allocated output on the wasm heap), so a product costs no copies.
import { createRequire } from 'node:module';

export interface OrtTensor { readonly data: Float32Array | Int32Array; readonly dims: readonly number[] }
interface BindingSession {
  loadModel(buffer: ArrayBuffer, byteOffset: number, byteLength: number, options: object): void;
  run(feeds: Record<string, OrtTensor>, fetches: Record<string, OrtTensor | null>, options: object): Record<string, OrtTensor>;
  dispose(): void;
}
interface Ort {
  binding: { InferenceSession: new () => BindingSession };
  initOrt(): void;
  Tensor: new (type: 'float32' | 'int32', data: Float32Array | Int32Array, dims: readonly number[]) => OrtTensor;
}

let ort: Ort | null | undefined;
let loadError = '';

/** The onnxruntime-node binding, or null (with the reason in nativeLoadError()) where it cannot load. */
function loadOrt(): Ort | null {
  if (ort !== undefined) return ort;
  try {
    const require = createRequire(import.meta.url);
    const { binding, initOrt } = require('onnxruntime-node/dist/binding.js');
    const { Tensor } = require('onnxruntime-common');
    initOrt();
    ort = { binding, initOrt, Tensor };
  } catch (err) {
    loadError = (err as Error).message.split('\n')[0];
    ort = null;
  }
  return ort;
}

export function nativeAvailable(): boolean {
  return loadOrt() !== null;
}

export function nativeLoadError(): string {
  loadOrt();
  return loadError;
}

/** A loaded ONNX graph run synchronously with views as inputs and pre-allocated outputs. */
export class NativeSession {
  private readonly session: BindingSession;
  private readonly ort: Ort;

  constructor(model: Uint8Array, threads: number) {
    const o = loadOrt();
    if (!o) throw new Error(`onnxruntime-node cannot be loaded: ${loadError}`);
    this.ort = o;
    this.session = new o.binding.InferenceSession();
    // One intra-op pool per session; sequential execution (the graphs are chains of a few nodes).
    this.session.loadModel(model.buffer as ArrayBuffer, model.byteOffset, model.byteLength, {
      intraOpNumThreads: threads, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all',
      enableCpuMemArena: false, enableMemPattern: false,
      // Idle pool threads sleep instead of spinning: between products the wasm kernels run, and a
      // spinning thread would burn a core (and CPU time) for nothing.
      extra: { session: { intra_op: { allow_spinning: '0' } } },
    });
  }

  tensor(data: Float32Array | Int32Array, dims: readonly number[]): OrtTensor {
    return new this.ort.Tensor(data instanceof Int32Array ? 'int32' : 'float32', data, dims);
  }

  /** Runs the graph; each output is written into the tensor given for it. */
  run(feeds: Record<string, OrtTensor>, outputs: Record<string, OrtTensor>): void {
    this.session.run(feeds, outputs, {});
  }
}
