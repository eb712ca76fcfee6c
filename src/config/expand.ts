// A study expands into runs: every model x training set x method x seed (a base method is not
// trained, so it gets one run per model and training set whatever the seeds).
import type { Study, StudyMethod, StudyModel, StudyTrainingSet } from './schema.ts';

export interface RunPlan {
  /** Unique, readable, stable across invocations: the store's run id and the checkpoint folder name. */
  id: string;
  model: StudyModel;
  trainingSet: StudyTrainingSet;
  method: StudyMethod;
  seed: number;
}

export function expandStudy(study: Study): RunPlan[] {
  const runs: RunPlan[] = [];
  for (const model of study.models) {
    for (const trainingSet of study.training) {
      for (const method of study.methods) {
        const seeds = method.kind === 'base' ? [study.seeds[0]] : study.seeds;
        for (const seed of seeds) {
          const parts = [model.id, safe(trainingSet.id), method.name];
          if (method.kind !== 'base' && study.seeds.length > 1) parts.push(`seed${seed}`);
          runs.push({ id: parts.join('--'), model, trainingSet, method, seed });
        }
      }
    }
  }
  const seen = new Set<string>();
  for (const r of runs) {
    if (seen.has(r.id)) throw new Error(`two runs share the id ${r.id}: give models, training sets and methods distinct ids`);
    seen.add(r.id);
  }
  return runs;
}

function safe(id: string): string {
  return id.replace(/[/:]/g, '_');
}
