// Data sets as a command line or a study file names them: a data set spec file (YAML / JSON), a
// registry id ("<set>:<split>"), or, for a look at a file (`genstudy data inspect`), a bare data file.
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../errors.ts';
import type { Example, TaskKind } from '../types.ts';
import type { HubOptions } from './hub.ts';
import { loadDataSet, readSpecFile, readSpecOrDataFile, type LoadedDataSet } from './load.ts';
import { isRegistryId, loadRegistered, type DataSource } from './registry.ts';
import { taskKindOf } from './spec.ts';

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

/** A loaded data set with its name, and its task kind and preset where the registry or the spec's columns say them. */
export interface NamedDataSet extends LoadedDataSet {
  name: string;
  task?: TaskKind;
  /** A registered set's task preset (the registry's `preset`). */
  preset?: string;
}

export interface NamedDataSetOptions {
  /** Registered sets: the data folder and which source (local file or hub copy). */
  dataDir?: string;
  source?: DataSource;
  hub?: HubOptions;
  limit?: number;
  /** A bare data file's label column. */
  label?: string;
}

/**
 * A registry id, a spec file, or a bare data file read with the default mapping, loaded; the task
 * kind is the registry's for a registered set, else what the spec's columns make (taskKindOf).
 */
export async function loadNamedDataSet(target: string, o: NamedDataSetOptions = {}): Promise<NamedDataSet> {
  if (isRegistryId(target)) {
    const r = await loadRegistered(target, { dataDir: o.dataDir, source: o.source, hub: o.hub, limit: o.limit });
    return { ...r, name: r.id };
  }
  if (!fs.existsSync(target)) throw new UserError(`"${target}" is neither a registry id (see genstudy data list) nor an existing file`);
  const { spec, baseDir } = await readSpecOrDataFile(target, o.label);
  const loaded = await loadDataSet(spec, { baseDir, hub: o.hub, limit: o.limit });
  const task = taskKindOf(spec);
  return { ...loaded, name: spec.name ?? target, ...(task === undefined ? {} : { task }) };
}
