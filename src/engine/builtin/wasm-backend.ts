// The parts of tfjs-backend-wasm's BackendWasm (its backend_wasm.ts) that the engine's own kernels
// use, declared once: the package's typings leave them out. Kernels get the backend as
// `args.backend` or `tf.backend()` and read it through this view.
import type * as tf from '@tensorflow/tfjs-core';

/** A tensor's memory on the wasm heap: float32, int32, or bool as bytes. */
export type HeapArray = Float32Array | Int32Array | Uint8Array;

export interface WasmBackend {
  makeOutput(shape: number[], dtype: tf.DataType): tf.TensorInfo;
  typedArrayFromHeap(t: tf.TensorInfo): HeapArray;
  incRef(dataId: tf.DataId): void;
  refCount(dataId: tf.DataId): number;
  disposeData(dataId: tf.DataId, force?: boolean): boolean;
  /** The JavaScript side's record of each tensor: its id on the C++ side and where its memory lies. */
  dataIdMap: { get(dataId: tf.DataId): { id: number; memoryOffset: number; shape: number[] } | undefined };
  wasm: {
    asm: { memory: WebAssembly.Memory };
    tfjs: { disposeData(id: number): void; registerTensor(id: number, size: number, memoryOffset: number): void };
  };
}
