// A study's training set as examples: the synthetic suite's ID training set, a registered data
// set, or a data set spec file.
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../errors.ts';
import { isRegistryId, loadDataSet, loadRegistered, readSpecFile } from '../data/index.ts';
import { readSuite } from '../synth/index.ts';
import type { StudyTrainingSet } from '../config/schema.ts';
import type { Example } from '../types.ts';

export interface TrainingData { examples: Example[]; taskPreset?: string }

export async function loadTrainingExamples(set: StudyTrainingSet, o: { studyDir: string; dataDir?: string; suiteDir?: string }): Promise<TrainingData> {
  if (set.data === 'synthetic') {
    if (!o.suiteDir) throw new UserError(`training set "${set.id}": data "synthetic" needs a "synthetic:" section in the study`);
    return { examples: (await readSuite(o.suiteDir)).train, taskPreset: 'synth' };
  }
  const file = path.resolve(o.studyDir, set.data);
  if (/\.(ya?ml|json)$/i.test(set.data) && fs.existsSync(file)) {
    const { spec, baseDir } = await readSpecFile(file);
    return { examples: (await loadDataSet(spec, { baseDir })).examples };
  }
  if (isRegistryId(set.data)) {
    const loaded = await loadRegistered(set.data, { dataDir: o.dataDir });
    return { examples: loaded.examples };
  }
  throw new UserError(`training set "${set.id}": data "${set.data}" is neither "synthetic", a data set spec file, nor a registered data set (genstudy data list)`);
}
