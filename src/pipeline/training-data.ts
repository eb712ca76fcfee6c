// A study's training set as examples: the synthetic suite's ID training set, or what a data set
// spec file or registry id names.
import { UserError } from '../errors.ts';
import { loadExamples } from '../data/index.ts';
import { readSuite } from '../synth/index.ts';
import type { StudyTrainingSet } from '../config/schema.ts';
import type { Example } from '../types.ts';

export interface TrainingData { examples: Example[]; taskPreset?: string }

export async function loadTrainingExamples(set: StudyTrainingSet, o: { studyDir: string; dataDir?: string; suiteDir?: string }): Promise<TrainingData> {
  if (set.data === 'synthetic') {
    if (!o.suiteDir) throw new UserError(`training set "${set.id}": data "synthetic" needs a "synthetic:" section in the study`);
    return { examples: (await readSuite(o.suiteDir)).train, taskPreset: 'synthetic' };
  }
  try {
    return { examples: (await loadExamples(set.data, { dataDir: o.dataDir, baseDir: o.studyDir })).examples };
  } catch (err) {
    if (err instanceof UserError) throw new UserError(`training set "${set.id}": ${err.message}`);
    throw err;
  }
}
