// Memory during backprop: tfjs keeps every intermediate gradient and every tensor saved for the
// backward pass until the whole backward pass ends, so the peak holds all of them at once. Each
// tape node's gradient is wrapped so that, once the walk moves on to the next node, the previous
// node's output gradients (consumed: the tape is walked in reverse order, so nothing reads them
// again) and its saved tensors (clones made for this node alone) are released. And the kernels
// whose gradients read only their inputs' shapes (Add, Sub, Reshape, Sum, Mean, Slice, Concat
// save their inputs for that alone) have their saved tensors released as soon as they are
// recorded: a released tensor keeps its shape. That kept about half of what the tape held at the
// end of the bench model's forward pass (80 of 171 MB). Where a tensor feeds several nodes, tfjs sums
// its gradients (the residual stream, a tied embedding) and keeps each summed-in part until the walk
// ends; those are released with the next node too (~240 MB at SmolLM-135M's shape). A node none of
// whose inputs depends on the variables being differentiated (a dropout mask's uniform draw,
// comparison and cast; with LoRA, the frozen model's layers below the first adapter) is never walked,
// yet tfjs kept what it saved to the walk's end: that is released as soon as it is recorded.
import * as tf from '@tensorflow/tfjs-core';
import { announceGradientSum } from './gradient-sum.ts';

interface TapeNode {
  kernelName: string;
  inputs?: Record<string, tf.Tensor>;
  outputs?: tf.Tensor[];
  gradient?: (dys: (tf.Tensor | null)[]) => Record<string, () => tf.Tensor>;
  saved?: tf.Tensor[];
}
interface EngineInternals {
  addTapeNode(...args: unknown[]): void;
  gradients(...args: unknown[]): unknown;
  state: { activeTape: TapeNode[] | null; gradientDepth: number };
}

/** Kernels whose registered gradients read nothing of their saved inputs but the shapes. */
const SHAPE_ONLY_GRADIENTS = new Set(['Add', 'Sub', 'Reshape', 'Sum', 'Mean', 'Slice', 'Concat']);

/** What the last walked node left: released when the walk reaches the next node. */
let consumed: { tensors: tf.Tensor[]; keep: Set<tf.Tensor> } | null = null;
/**
 * This walk's stored gradients, and the ids of the tensors they belong to: tfjs stores an input's
 * first gradient and adds each later one to it (tape.ts backpropagateGradients), so a later one is
 * garbage once added (unless it is a stored one too: a gradient function may return one object twice).
 */
let walk = { stored: new Set<tf.Tensor>(), ids: new Set<number>() };
/**
 * Ids of the tensors the recorded forward pass has made from the variables being differentiated
 * (and theirs): a node with no input among them is not walked (tape.ts getFilteredNodesXToY).
 */
let fromVariables: Set<number> | null = null;

function releaseConsumed(): void {
  if (!consumed) return;
  for (const t of consumed.tensors) if (!consumed.keep.has(t)) t.dispose();
  consumed = null;
}

/**
 * Whether the gradient being recorded may ask for `t`'s: false for a tensor that is not one of the
 * variables being differentiated and was not made from them (tfjs's walk never reaches it), such as a
 * frozen weight under LoRA; true outside a recorded pass or inside a nested one (nothing known).
 */
export function gradientMayReach(t: tf.Tensor): boolean {
  const engine = tf.engine() as unknown as EngineInternals;
  return fromVariables === null || engine.state.gradientDepth !== 1 || fromVariables.has(t.id);
}

/** Wraps each new tape node's gradient so that its dys and saved tensors are released early (installed once, by enable.ts). */
export function releaseGradientsEarly(): void {
  const engine = tf.engine() as unknown as EngineInternals;
  const addTapeNode = engine.addTapeNode.bind(engine);
  engine.addTapeNode = (...args: unknown[]) => {
    addTapeNode(...args);
    const tape = engine.state.activeTape;
    const node = tape?.[tape.length - 1];
    const inner = node?.gradient;
    if (!node || !inner) return;
    if (SHAPE_ONLY_GRADIENTS.has(node.kernelName)) for (const t of node.saved ?? []) t.dispose();
    if (fromVariables) {
      if (Object.values(node.inputs ?? {}).some((t) => fromVariables!.has(t.id))) for (const o of node.outputs ?? []) fromVariables.add(o.id);
      // Only in the outermost forward pass: a nested (higher-order) call's walk may read what the
      // outer pass recorded, from its own variables (genstudy makes no such call).
      else if (engine.state.gradientDepth === 1) for (const t of node.saved ?? []) t.dispose();
    }
    node.gradient = (dys) => {
      // Higher-order gradients record the backward pass itself: nothing is released there.
      if (engine.state.gradientDepth > 0) return inner(dys);
      releaseConsumed();
      const grads = inner(dys);
      // A gradient function may hand back a dy itself as an input's gradient: that one is kept.
      const keep = new Set<tf.Tensor>();
      consumed = { tensors: [...dys.filter((d): d is tf.Tensor => d != null), ...(node.saved ?? [])], keep };
      const wrapped: Record<string, () => tf.Tensor> = {};
      for (const [name, thunk] of Object.entries(grads)) {
        wrapped[name] = () => {
          const dx = thunk();
          const x = node.inputs?.[name];
          if (x && walk.ids.has(x.id)) {
            if (!walk.stored.has(dx)) consumed?.tensors.push(dx);
            announceGradientSum(dx);
          } else {
            if (x) walk.ids.add(x.id);
            walk.stored.add(dx);
            keep.add(dx);
          }
          return dx;
        };
      }
      return wrapped;
    };
  };
  // A walk's last node is cleaned up by gradients() itself; forget it so a later walk does not touch it.
  const gradients = engine.gradients.bind(engine);
  engine.gradients = (...args: unknown[]) => {
    const [outer, outerFrom] = [walk, fromVariables];
    walk = { stored: new Set(), ids: new Set() };
    // A nested call records onto the outer call's tape (gradientDepth > 1), which keeps its own set.
    if (engine.state.gradientDepth === 0) fromVariables = new Set((args[1] as tf.Tensor[]).map((x) => x.id));
    try {
      return gradients(...args);
    } finally {
      consumed = null;
      announceGradientSum(null);
      [walk, fromVariables] = [outer, outerFrom];
    }
  };
}
