// The runs row a trainer records, one builder for both backends (built-in and hf), so a study's
// runs compare whichever trained them: what the run did (its steps, and the epochs those make),
// not what was left at a default; LoRA null for a full fine-tune.
import type { RunRecord } from '../store/result-store.ts';
import type { ResolvedOptions } from './options.ts';
import { epochsOfSteps } from './order.ts';

export interface TrainedRun {
  /** Optimiser steps the run takes in all. */
  steps: number;
  /** Training sequences the steps draw from. */
  sequences: number;
  fingerprint: string;
  backend: 'builtin' | 'hf';
  /** Processes sharing each step (data parallel); 1 on the built-in trainer. */
  processes: number;
}

export function trainingRunRecord(o: ResolvedOptions, run: TrainedRun): RunRecord {
  const epochs = epochsOfSteps({ examples: run.sequences, batchSize: o.batchSize, gradAccum: o.gradAccum }, run.steps);
  return {
    id: o.run!, model: o.model, trainingSet: o.dataName ?? null, method: o.method, seed: o.seed,
    attributes: {
      lr: o.lr, schedule: o.schedule, steps: run.steps, epochs: Math.round(epochs * 100) / 100, batchSize: o.batchSize, gradAccum: o.gradAccum,
      objective: o.objective, lora: o.lora ?? null, trainExamples: run.sequences, fingerprint: run.fingerprint,
      backend: run.backend, processes: run.processes,
    },
  };
}
