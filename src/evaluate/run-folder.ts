// A run's identity includes where its checkpoints come from. Naming a run after its folder's base
// name alone merged trainings whose folders share it (exp1/output, exp2/output, exp3/output all
// became run "output", and their steps displaced each other): the default name keeps the parent
// when the base name says nothing (output, checkpoints, ...), and the store records each run's
// folder, so checkpoints from another folder are refused under it unless the run is named on purpose.
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../errors.ts';
import { ResultStore } from '../store/result-store.ts';
import { stepOfFolder } from './checkpoints.ts';

/**
 * Folder names that trainers and scripts give every run alike (transformers' Trainer defaults to
 * trainer_output, formerly tmp_trainer), so that a run named after one would collide with the next.
 */
export const GENERIC_RUN_FOLDER_NAMES: readonly string[] = ['output', 'outputs', 'out', 'checkpoints', 'ckpt', 'ckpts', 'model', 'models',
  'run', 'runs', 'results', 'trainer_output', 'tmp_trainer'];

/**
 * The folder a run's checkpoints come from, given a model folder (a run folder, one of its
 * step-N / checkpoint-N folders, or a merged/ model inside one): the run folder, with links
 * resolved, so that one folder reached two ways is one folder.
 */
export function runFolderOf(modelDir: string): string {
  let dir = path.resolve(modelDir);
  try {
    dir = fs.realpathSync(dir);
  } catch {
    // Gone (a path recorded in the store long ago): compared as recorded.
  }
  if (path.basename(dir) === 'merged' && stepOfFolder(path.basename(path.dirname(dir))) !== undefined) dir = path.dirname(dir);
  return stepOfFolder(path.basename(dir)) !== undefined ? path.dirname(dir) : dir;
}

/** The run name a run folder gets when none is given: its name, or parent/name when its name is generic (exp1/output). */
export function defaultRunName(runFolder: string): string {
  const name = path.basename(runFolder);
  const parent = path.basename(path.dirname(runFolder));
  return GENERIC_RUN_FOLDER_NAMES.includes(name.toLowerCase()) && parent !== '' ? `${parent}/${name}` : name;
}

/**
 * The folders run `run`'s checkpoints come from per the store: the one recorded with the run, else
 * (runs stored before the store recorded it) the run folders of its checkpoints' recorded paths.
 */
function storedRunFolders(store: ResultStore, run: string): string[] {
  const record = store.runs().find((r) => r.id === run);
  if (record === undefined) return [];
  if (record.checkpointFolder) return [record.checkpointFolder];
  return [...new Set(store.checkpoints(run).flatMap((c) => (c.path ? [runFolderOf(c.path)] : [])))].sort();
}

/**
 * Checks that checkpoints from `folder` may be added to run `run` of the store (open, or its file)
 * before anything is written or hashed: a run whose checkpoints come from another folder is refused (two trainings would share
 * one series) unless the caller named the run itself (`named`: --run), in which case the returned
 * line says that two folders now feed it.
 */
export function checkRunFolder(store: ResultStore | string, run: string, folder: string, named: boolean): string | undefined {
  if (typeof store === 'string') {
    // No store yet holds no run to check against, and a refusal must not leave an empty store behind.
    if (store === ':memory:' || !fs.existsSync(store)) return undefined;
    const opened = ResultStore.open(store, { readonly: true });
    try {
      return checkRunFolder(opened, run, folder, named);
    } finally {
      opened.close();
    }
  }
  const stored = storedRunFolders(store, run);
  if (stored.length === 0 || stored.includes(folder)) return undefined;
  const from = stored.join(', ');
  if (named) return `run "${run}" of ${store.path} holds checkpoints from ${from}; adding those of ${folder} to it, as --run asks`;
  throw new UserError(`${store.path}: run "${run}" holds checkpoints from ${from}, not from ${folder}; pass --run NAME to store these ` +
    `under a run of their own, or --run ${JSON.stringify(run)} to add them to it`);
}
