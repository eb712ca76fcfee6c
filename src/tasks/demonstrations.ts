// Demonstrations for in-context learning (ICL, at test time) and for fine-tuning with in-context
// examples (FTICL, at training time).
//
// Study B took the first k rows of a fixed few-shot file for every query, at test time
// (evaluate_cross.py) and at training time (train_ptune.py, with the in-domain set's few-shot
// file). genstudy also offers k rows sampled per query with a seed, optionally covering every class
// first; sampling is keyed by (seed, query id), so a query's demonstrations do not depend on the
// order or the number of the other queries. A sampled query never gets itself as a demonstration.
import { UserError } from '../errors.ts';
import type { Example } from '../types.ts';
import type { BuildOptions, DemonstrationsFor } from './classify.ts';
import { seededRandom } from '../seeded-random.ts';
import { buildContext, outputOf, taskJoin, type TaskSpec } from './task.ts';

export type DemonstrationSelection =
  | { kind: 'first-k'; k: number }
  | { kind: 'sampled'; k: number; seed: number; coverClasses?: boolean };

function checkK(k: number, poolSize: number, what: string): void {
  if (!Number.isInteger(k) || k < 0) throw new UserError(`${what}: k must be a whole number >= 0, got ${k}`);
  if (k > poolSize) throw new UserError(`${what}: k = ${k} but the demonstration pool has only ${poolSize} examples`);
}

/**
 * Returns the function that picks each query's demonstrations from `pool`. `poolName` (e.g. the
 * few-shot file) appears in error messages.
 */
export function demonstrationsFor(task: TaskSpec, pool: readonly Example[], selection: DemonstrationSelection,
  poolName = 'demonstrations'): DemonstrationsFor {
  const what = `task "${task.name}", ${poolName}`;
  if (selection.kind === 'first-k') {
    checkK(selection.k, pool.length, what);
    const fixed = pool.slice(0, selection.k);
    for (const d of fixed) outputOf(task, d);
    return () => fixed;
  }
  const { k, seed, coverClasses = false } = selection;
  checkK(k, pool.length, what);
  for (const d of pool) outputOf(task, d);
  let classes: string[] = [];
  if (coverClasses) {
    if (task.kind !== 'classify') throw new UserError(`${what}: coverClasses needs a classify task`);
    classes = task.labels.filter((l) => pool.some((d) => d.label === l));
    if (k < classes.length) throw new UserError(`${what}: coverClasses needs k >= ${classes.length} (one per class), got k = ${k}`);
  }
  return (query: Example) => {
    const rng = seededRandom(seed, 'demonstrations', query.id);
    const candidates = pool.filter((d) => d.id !== query.id);
    if (candidates.length < k) {
      throw new UserError(`${what}: query "${query.id}" needs ${k} demonstrations other than itself; the pool has ${candidates.length}`);
    }
    const chosen: Example[] = [];
    const taken = new Set<number>();
    for (const label of classes) {
      const idx = candidates.map((d, i) => (d.label === label ? i : -1)).filter((i) => i >= 0 && !taken.has(i));
      if (idx.length === 0) continue;
      const i = rng.pick(idx);
      taken.add(i);
      chosen.push(candidates[i]);
    }
    const rest = rng.shuffle(candidates.map((_, i) => i).filter((i) => !taken.has(i)));
    for (const i of rest) {
      if (chosen.length >= k) break;
      chosen.push(candidates[i]);
    }
    return coverClasses ? rng.shuffle(chosen) : chosen;
  };
}

/**
 * One training string in pieces, so the trainer can mask the loss: the model reads
 * `context + target` (+ the EOS token, the trainer's job) and the loss covers the target's tokens
 * only. Study B: context = the FTICL demonstrations + the prompt, target = the output (plain FT
 * has no demonstrations). Study B's training strings had no zero-shot prefix, so none is added.
 */
export interface TrainingPieces { exampleId: string; context: string; target: string }

export function trainingPieces(task: TaskSpec, examples: readonly Example[], opts: BuildOptions = {}): TrainingPieces[] {
  const join = { ...(opts.join ?? taskJoin(task)), zeroShotPrefix: '' };
  return examples.map((ex) => ({
    exampleId: ex.id,
    context: buildContext(task, ex, opts.demonstrations?.(ex) ?? [], join),
    target: outputOf(task, ex),
  }));
}
