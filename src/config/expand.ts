// A study expands into runs: every model x training set x method x seed (a base method is not
// trained, so it gets one run per model and training set whatever the seeds).
import { UserError } from '../errors.ts';
import type { Study, StudyMethod, StudyModel, StudyTrainingSet } from './schema.ts';
import { fticlShots, listFor } from './settings.ts';

export interface RunPlan {
  /** Unique, readable, stable across invocations: the store's run id and the checkpoint folder name. */
  id: string;
  model: StudyModel;
  trainingSet: StudyTrainingSet;
  method: StudyMethod;
  seed: number;
  /** In-context demonstrations in every evaluation prompt: base k-shot ICL, or FTICL's k (0: none). */
  shots: number;
}

export function expandStudy(study: Study): RunPlan[] {
  const runs: RunPlan[] = [];
  for (const model of study.models) {
    for (const trainingSet of study.training) {
      for (const method of study.methods) {
        if (method.kind === 'base') {
          for (const shots of baseShots(method, trainingSet)) {
            const name = shots === 0 ? method.name : `${method.name}-k${shots}`;
            runs.push({ id: [model.id, safe(trainingSet.id), name].join('--'), model, trainingSet, method, seed: study.seeds[0], shots });
          }
          continue;
        }
        // FTICL trains one model per k when the method lists several (study B: 2 and 4 for sentiment).
        const ks = method.kind === 'fticl' ? fticlShots(method, trainingSet) : [0];
        const named = method.kind === 'fticl' && (Array.isArray(method.demonstrations) || typeof method.demonstrations === 'object');
        for (const k of ks) {
          for (const seed of study.seeds) {
            const parts = [model.id, safe(trainingSet.id), named ? `${method.name}-k${k}` : method.name];
            if (study.seeds.length > 1) parts.push(`seed${seed}`);
            runs.push({ id: parts.join('--'), model, trainingSet, method, seed, shots: k });
          }
        }
      }
    }
  }
  const seen = new Set<string>();
  for (const r of runs) {
    if (seen.has(r.id)) {
      throw new UserError(`the study file makes two runs with the id ${r.id}: give models, training sets and methods distinct ids`,
        { field: 'models' });
    }
    seen.add(r.id);
  }
  return runs;
}

function baseShots(method: StudyMethod, set: StudyTrainingSet): number[] {
  const shots = method.shots;
  if (shots === undefined) return [0];
  if (Array.isArray(shots)) return shots;
  return listFor(shots, set, `methods "${method.name}": shots`);
}

function safe(id: string): string {
  return id.replace(/[/:]/g, '_');
}

/** The runs `--only` names (all without it); a name the study does not make is a user error listing those it does. */
export function selectRuns<T extends { id: string }>(runs: readonly T[], only: readonly string[] | undefined): T[] {
  if (!only?.length) return [...runs];
  const unknown = only.filter((id) => !runs.some((r) => r.id === id));
  if (unknown.length) throw new UserError(`--only: no run ${unknown.join(', ')} in the study; it has ${runs.map((r) => r.id).join(', ')}`);
  return runs.filter((r) => only.includes(r.id));
}
