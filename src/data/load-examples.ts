// Examples from whatever names a data set on a command line or in a study file: a data set spec
// file (YAML / JSON) or a registry id ("<set>:<split>").
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../errors.ts';
import type { Example } from '../types.ts';
import { loadDataSet, readSpecFile } from './load.ts';
import { isRegistryId, loadRegistered } from './registry.ts';

export async function loadExamples(spec: string, opts: { dataDir?: string; baseDir?: string } = {}): Promise<{ examples: Example[]; name: string }> {
  const file = path.resolve(opts.baseDir ?? '.', spec);
  if (/\.(ya?ml|json)$/i.test(spec) && fs.existsSync(file)) {
    const { spec: s, baseDir } = await readSpecFile(file);
    return { examples: (await loadDataSet(s, { baseDir })).examples, name: spec };
  }
  if (isRegistryId(spec.split(':')[0])) {
    const loaded = await loadRegistered(spec, { dataDir: opts.dataDir });
    return { examples: loaded.examples, name: loaded.id };
  }
  throw new UserError(`${spec}: neither a data set spec file (.yaml/.json) nor a registered data set (genstudy data list shows them)`);
}
