// A study's training set as examples: the synthetic suite's ID training set, or what a data set
// spec file or registry id names.
import { UserError } from '../errors.ts';
import { isRegistryId, keepingBugRows, loadDataSet, loadExamples, loadRegistered, readRegistry, registrySpec, replayedBugOf,
  type ReplayedBug } from '../data/index.ts';
import { methodSettingsOf, studySettings } from '../config/settings.ts';
import type { RunPlan } from '../config/expand.ts';
import type { DemonstrationSelection } from '../tasks/index.ts';
import { readSuite, trainingVariant } from '../synth/index.ts';
import type { Study, StudyTrainingSet } from '../config/schema.ts';
import type { Example } from '../types.ts';

export interface TrainingData {
  examples: Example[];
  taskPreset?: string;
  /** A replayed bug's rows kept (study A's MNLI neutral): their label, how many, the token id they train toward. */
  replayed?: { bug: ReplayedBug; kept: number };
}

export async function loadTrainingExamples(
  set: StudyTrainingSet, o: { studyDir: string; dataDir?: string; suiteDir?: string; replayBugs?: boolean },
): Promise<TrainingData> {
  // "synthetic": the suite's training set; "synthetic:<variant>": one of its training variants (design: artifacts).
  if (set.data === 'synthetic' || set.data.startsWith('synthetic:')) {
    if (!o.suiteDir) throw new UserError(`training set "${set.id}": data "${set.data}" needs a "synthetic:" section in the study`);
    const variant = set.data === 'synthetic' ? undefined : set.data.slice('synthetic:'.length);
    try {
      return { examples: trainingVariant(await readSuite(o.suiteDir), variant), taskPreset: 'synthetic' };
    } catch (err) {
      if (err instanceof UserError) throw new UserError(`training set "${set.id}": ${err.message}`);
      throw err;
    }
  }
  const bug = o.replayBugs && isRegistryId(set.data) ? replayedBugOf(set.data) : undefined;
  try {
    if (bug) {
      const r = registrySpec(set.data, { dataDir: o.dataDir });
      const examples = (await loadDataSet(keepingBugRows(r.spec, bug, 'own'), { baseDir: r.baseDir })).examples;
      return { examples, replayed: { bug, kept: examples.filter((ex) => ex.label === bug.label).length } };
    }
    return { examples: (await loadExamples(set.data, { dataDir: o.dataDir, baseDir: o.studyDir })).examples };
  } catch (err) {
    if (err instanceof UserError) throw new UserError(`training set "${set.id}": ${err.message}`);
    throw err;
  }
}

/**
 * FTICL's demonstrations for a run, as the study's protocol picks them (config/settings.ts): the
 * first k rows of the training set's in-domain few-shot file, the same for every example (study B,
 * train_ptune.py), or k rows sampled per training example from the training rows (seeded by the
 * run's seed, never the example itself). The one place a run's demonstrations are decided, so every
 * trainer (built-in or Hugging Face) gets the same prepared examples.
 */
export async function fticlDemonstrations(study: Study, run: RunPlan, training: readonly Example[], dataDir?: string): Promise<{
  pool: readonly Example[]; selection: DemonstrationSelection }> {
  const { demonstrationPool: pool, demonstrationSelection: selection } = methodSettingsOf(studySettings(study), run.method);
  const k = run.shots;
  const pick: DemonstrationSelection = selection === 'first' ? { kind: 'first-k', k } : { kind: 'sampled', k, seed: run.seed };
  if (pool === 'training') return { pool: training, selection: pick };
  const setId = run.trainingSet.data.split(':')[0];
  if (!isRegistryId(run.trainingSet.data) || !('few-shot' in (readRegistry().sets[setId]?.splits ?? {}))) {
    throw new UserError(`training set "${run.trainingSet.id}": demonstrationPool "few-shot" needs a registered data set with a few-shot ` +
      `split (study B's), not "${run.trainingSet.data}"; use demonstrationPool: training`);
  }
  const fewShot = await loadRegistered(`${setId}:few-shot`, { dataDir });
  return { pool: fewShot.examples, selection: pick };
}
