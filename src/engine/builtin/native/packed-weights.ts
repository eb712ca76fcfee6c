// A model's weights go to onnxruntime as a session's constants instead of as inputs during inference
// calls (scoring, generation, reading labels): MatMul and Gemm then pack a constant into MLAS's panel
// layout once, when its session is made, where an input is packed again by every product (~2.5 ns a
// value, 15-20% of a 1020 x 576 x 1536 product's CPU time; src/engine/README.md has the measured
// effect on a pass). As tfjs-backend-wasm keeps its XNNPACK-packed operands, under the rule that a
// tensor's values do not change, a weight's sessions live until it is disposed or written in place
// (written-in-place.ts), or a training step begins (its memory is the step's; an evaluation between
// steps packs again). Inside an inference call every product with one of the model's weights runs
// packed, from the first: MLAS's packed and unpacked products differ in the last bits, and a result
// must not depend on what ran before it (a resumed evaluation gives the uninterrupted one's bits).
// The packed copies take as much memory again as the weights packed.
import os from 'node:os';
import type * as tf from '@tensorflow/tfjs-core';
import { encodeModel, type OnnxGraph } from './onnx-proto.ts';
import { NativeSession } from './ort.ts';
import type { WasmBackend } from '../wasm-backend.ts';

let enabled = true;
/** The weights of the inference calls running now, each with the number of calls. */
const eligible = new Map<tf.DataId, number>();
/** By weight: the sessions holding it as a constant, by graph. */
const weights = new Map<tf.DataId, Map<string, NativeSession>>();

/** Counters for the tests and benches: sessions made with a packed weight, and runs of them. */
export const packedWeightStats = { sessions: 0, runs: 0 };

/** How many weights have packed copies now. */
export function packedWeightsHeld(): number {
  return weights.size;
}

/** Switches packing on or off (off: every product takes its weight as an input), for comparisons in tests. */
export function setWeightPacking(on: boolean): void {
  enabled = on;
}

/**
 * The most weight memory packed for one model: a quarter of the machine's, so that the weights and
 * their packed copies take at most half. A larger model's products take their weights as inputs (the
 * choice is per model and machine, not per moment, so that results do not depend on free memory).
 */
const MAX_PACKED_BYTES = os.totalmem() / 4;

/** Runs `call`, one inference call, with `modelWeights` packed. Calls may nest or overlap. */
export async function withPackedWeights<T>(modelWeights: Iterable<tf.TensorInfo>, call: () => Promise<T>): Promise<T> {
  const all = [...modelWeights];
  const bytes = all.reduce((n, w) => n + 4 * w.shape.reduce((a, b) => a * b, 1), 0);
  const ids = bytes <= MAX_PACKED_BYTES ? all.map((w) => w.dataId) : [];
  for (const id of ids) eligible.set(id, (eligible.get(id) ?? 0) + 1);
  try {
    return await call();
  } finally {
    for (const id of ids) {
      const n = eligible.get(id)! - 1;
      if (n === 0) eligible.delete(id);
      else eligible.set(id, n);
    }
  }
}

/** Frees what was packed from `dataId` (its values are about to change, or it is gone). */
export function forgetPackedWeight(dataId: tf.DataId): void {
  const w = weights.get(dataId);
  if (!w) return;
  for (const s of w.values()) s.release();
  weights.delete(dataId);
}

/** Frees every packed weight (a training step begins). */
export function forgetPackedWeights(): void {
  for (const dataId of [...weights.keys()]) forgetPackedWeight(dataId);
}

/** Frees a weight's packed copies when the backend frees its memory (once per backend). */
function forgetOnDisposal(backend: WasmBackend): void {
  const marked = backend as WasmBackend & { packedWeightsWatched?: true };
  if (marked.packedWeightsWatched) return;
  marked.packedWeightsWatched = true;
  const dispose = backend.disposeData.bind(backend);
  backend.disposeData = (dataId, force) => {
    const freed = dispose(dataId, force);
    if (freed) forgetPackedWeight(dataId);
    return freed;
  };
}

/**
 * The session of the graph named `key` with its input `name` held as the constant `weight` (its last
 * two axes; its product contracts axis `contracted` of those), on `threads` threads of its own pool
 * (as scoring's sessions are), when `weight` is a model weight of an inference call running now;
 * otherwise undefined, and the caller runs its plain graph.
 */
export function packedSession(
  backend: WasmBackend, key: string, graph: () => OnnxGraph, name: string, weight: tf.TensorInfo, contracted: number, threads: number,
): NativeSession | undefined {
  const id = weight.dataId;
  if (!enabled || !eligible.has(id)) return undefined;
  forgetOnDisposal(backend);
  const dims = weight.shape.slice(-2);
  let w = weights.get(id);
  if (!w) {
    w = new Map();
    weights.set(id, w);
  }
  const fullKey = `${key} ${dims.join('x')}`;
  let s = w.get(fullKey);
  if (!s) {
    const model = encodeModel(asConstant(graph(), name, dims.map((d, i) => (i === contracted ? 0 : d))));
    s = new NativeSession(model, threads, 'own', { [name]: { data: backend.typedArrayFromHeap(weight) as Float32Array, dims } });
    w.set(fullKey, s);
    packedWeightStats.sessions++;
  }
  packedWeightStats.runs++;
  return s;
}

/**
 * `graph` with its input `name` turned into a constant declared with the shape `declared`. The
 * graph's initializer carries no values (the session is given them) and so must declare no elements:
 * the contracted axis is declared 0, which shape inference unifies with the other operand's symbolic
 * dimension (every graph here has symbolic input dimensions), leaving the output's shape as it was.
 */
function asConstant(graph: OnnxGraph, name: string, declared: number[]): OnnxGraph {
  const input = graph.inputs.find((v) => v.name === name);
  if (!input) throw new Error(`internal: the graph has no input ${name}`);
  return {
    ...graph,
    inputs: graph.inputs.filter((v) => v !== input),
    constants: [...(graph.constants ?? []), { ...input, shape: declared }],
  };
}
