// Finding the checkpoints to evaluate: one model folder, a folder of checkpoint folders (step-N,
// checkpoint-N as Hugging Face's Trainer writes them, sorted by N), or a run already in the store.
// A checkpoint folder is a full model, or a LoRA adapter (PEFT's adapter_config.json and
// adapter_model.safetensors, as the Trainer with PEFT and genstudy train write them) evaluated on
// its base model; a merged/ model inside an adapter folder is used when complete (no base needed).
//
// A checkpoint folder still being written is skipped with a message, never half-read: the Trainer
// writes into tmp-checkpoint-N and renames it, genstudy's writers leave temporary names (src/atomic-write.ts)
// until they rename, and a writer without either shows as a missing file or a safetensors file
// shorter than its header says.
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../errors.ts';
import type { CheckpointRef } from '../types.ts';
import { incompleteAdapterReason, incompleteReason } from '../engine/index.ts';


export interface DiscoverOptions {
  /** Base model folder for LoRA adapter checkpoints (default: the adapter's base_model_name_or_path when that is a local folder). */
  baseModel?: string;
  /** A folder with tokenizer.json for checkpoints saved without one. */
  tokenizerDir?: string;
}

export interface Discovered {
  checkpoints: CheckpointRef[];
  /** What was passed over and why, one line each. */
  skipped: string[];
}

const STEP_FOLDER = /^(?:step|checkpoint|global_step|ckpt)[-_]?(\d+)$/;
const WRITING_FOLDER = /^tmp-(?:step|checkpoint)[-_]?\d+$/;

/** The step a folder's name gives (step-200, checkpoint-200), or undefined. */
export function stepOfFolder(name: string): number | undefined {
  const m = STEP_FOLDER.exec(name);
  return m ? Number(m[1]) : undefined;
}

/**
 * Refuses two complete folders for one step (checkpoint-100 beside step-100): whichever was read
 * last would give the step's scores, and each later look would supersede them again. evaluate and
 * watch both ask here, so they refuse alike.
 */
export function refuseTwoFoldersForOneStep(runDir: string, folders: readonly { step: number; name: string }[]): void {
  const seen = new Map<number, string>();
  for (const { step, name } of [...folders].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const other = seen.get(step);
    if (other !== undefined) {
      throw new UserError(`${runDir}: two checkpoint folders for step ${step} (${other} and ${name}); move one of them out of the folder`);
    }
    seen.set(step, name);
  }
}

/** The base model of an adapter folder: --base-model, else its base_model_name_or_path when that is a local folder. */
function adapterBase(dir: string, opts: DiscoverOptions): string {
  const configFile = path.join(dir, 'adapter_config.json');
  let named: unknown;
  try {
    named = (JSON.parse(fs.readFileSync(configFile, 'utf8')) as { base_model_name_or_path?: unknown }).base_model_name_or_path;
  } catch (err) {
    throw new UserError(`${configFile}: not valid JSON (${(err as Error).message})`);
  }
  const base = opts.baseModel ?? (typeof named === 'string' && named !== '' && fs.existsSync(named) ? named : undefined);
  if (base === undefined) {
    throw new UserError(
      `${configFile}: a LoRA adapter of base model ${JSON.stringify(named ?? null)}, which is not a local folder; pass --base-model DIR`);
  }
  const why = fs.existsSync(base) ? incompleteReason(base) : 'no such folder';
  if (why !== undefined) throw new UserError(`${base}: the base model of ${dir} is not a model folder (${why})`);
  return path.resolve(base);
}

/** What to evaluate in a checkpoint folder (itself, its merged/ model, or it as an adapter), or why nothing. */
export function checkpointIn(dir: string, opts: DiscoverOptions): { dir: string; base?: string; tokenizer?: string } | { why: string } {
  const withTokenizer = (model: string) => (fs.existsSync(path.join(model, 'tokenizer.json')) || !opts.tokenizerDir
    ? { dir: model }
    : { dir: model, tokenizer: path.resolve(opts.tokenizerDir) });
  const asModel = incompleteReason(dir, opts.tokenizerDir);
  if (asModel === undefined) return withTokenizer(dir);
  const merged = path.join(dir, 'merged');
  if (fs.existsSync(merged) && incompleteReason(merged, opts.tokenizerDir) === undefined) return withTokenizer(merged);
  if (fs.existsSync(path.join(dir, 'adapter_config.json')) || fs.existsSync(path.join(dir, 'adapter_model.safetensors'))) {
    const why = incompleteAdapterReason(dir);
    return why === undefined ? { dir, base: adapterBase(dir, opts) } : { why: `LoRA adapter: ${why}` };
  }
  return { why: asModel };
}

/**
 * The checkpoints under `dir`: the folder itself when it is a model (step from its name, else 0),
 * else its step-N / checkpoint-N folders in step order, skipping incomplete ones.
 */
export function discoverCheckpoints(folder: string, opts: DiscoverOptions = {}): Discovered {
  const dir = path.resolve(folder);
  if (!fs.existsSync(dir)) throw new UserError(`${dir}: no such folder (--model expects a model folder or a folder of checkpoint folders)`);
  if (!fs.statSync(dir).isDirectory()) throw new UserError(`${dir}: not a folder (--model expects a model folder or a folder of checkpoint folders)`);
  const subdirs = fs.readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
  const stepDirs = subdirs.filter((d) => stepOfFolder(d) !== undefined);
  const skipped: string[] = [];
  if (stepDirs.length === 0) {
    const found = checkpointIn(dir, opts);
    if ('why' in found) {
      const runs = runFoldersBelow(dir);
      const hint = runs.length
        ? `; it holds run folders (${runs.slice(0, 3).map((r) => path.relative(dir, r)).join(', ')}` +
          `${runs.length > 3 ? `, ... ${runs.length} in all` : ''}): ` +
          `pass one of them, e.g. --model ${path.join(folder, path.relative(dir, runs[0]))}`
        : '';
      throw new UserError(`${dir}: not a model folder (${found.why}), and it holds no step-N or checkpoint-N folders${hint}`);
    }
    return { checkpoints: [{ step: stepOfFolder(path.basename(dir)) ?? 0, ...found }], skipped };
  }
  if (fs.existsSync(path.join(dir, 'config.json'))) {
    skipped.push(`${dir}: the model at the top of the folder is not evaluated (its checkpoint folders are); pass it alone to evaluate it`);
  }
  for (const d of subdirs.filter((s) => WRITING_FOLDER.test(s))) skipped.push(`${path.join(dir, d)}: being written (temporary folder); skipped`);
  const checkpoints: CheckpointRef[] = [];
  const names: { step: number; name: string }[] = [];
  for (const name of stepDirs) {
    const step = stepOfFolder(name)!;
    const full = path.join(dir, name);
    const found = checkpointIn(full, opts);
    if ('why' in found) {
      skipped.push(`${full}: incomplete checkpoint (${found.why}); skipped, perhaps it is still being written`);
      continue;
    }
    names.push({ step, name });
    checkpoints.push({ step, ...found });
  }
  refuseTwoFoldersForOneStep(dir, names);
  if (checkpoints.length === 0) {
    throw new UserError(`${dir}: none of its ${stepDirs.length} checkpoint folders is complete:\n  ${skipped.join('\n  ')}`);
  }
  checkpoints.sort((a, b) => a.step - b.step);
  return { checkpoints, skipped };
}

/** Folders up to two levels below `dir` that hold checkpoint folders (a study's out folder has them under runs/). */
function runFoldersBelow(dir: string): string[] {
  const out: string[] = [];
  const visit = (d: string, depth: number) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries.filter((x) => x.isDirectory()).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const sub = path.join(d, e.name);
      let inner: fs.Dirent[];
      try {
        inner = fs.readdirSync(sub, { withFileTypes: true });
      } catch {
        continue; // gone or unreadable: not a run folder to name
      }
      if (inner.some((x) => x.isDirectory() && stepOfFolder(x.name) !== undefined)) out.push(sub);
      else if (depth < 2) visit(sub, depth + 1);
    }
  };
  visit(dir, 1);
  return out;
}

/** The checkpoints of a run already in the store, from the paths recorded with them. */
export function storedCheckpoints(run: string, rows: readonly { step: number; path: string | null }[], storePath: string,
  opts: DiscoverOptions = {}): Discovered {
  if (rows.length === 0) throw new UserError(`${storePath}: run "${run}" has no checkpoints in the store; pass --model DIR`);
  const checkpoints: CheckpointRef[] = [];
  const skipped: string[] = [];
  for (const r of rows) {
    if (!r.path) { skipped.push(`run "${run}" step ${r.step}: no folder recorded in the store; skipped`); continue; }
    const found = fs.existsSync(r.path) ? checkpointIn(r.path, opts) : { why: 'the folder no longer exists' };
    if ('why' in found) { skipped.push(`run "${run}" step ${r.step}: ${r.path}: ${found.why}; skipped`); continue; }
    checkpoints.push({ step: r.step, ...found });
  }
  skipped.push(...unrecordedBeside(run, rows, opts));
  if (checkpoints.length === 0) throw new UserError(`${storePath}: no checkpoint of run "${run}" can be evaluated:\n  ${skipped.join('\n  ')}`);
  return { checkpoints, skipped };
}

/**
 * Complete checkpoint folders beside the run's recorded ones that the store has no row for (a
 * trainer killed between renaming a folder into place and recording it), one line each: evaluating
 * the store's list alone would silently leave them out.
 */
function unrecordedBeside(run: string, rows: readonly { step: number; path: string | null }[], opts: DiscoverOptions): string[] {
  const recorded = new Set(rows.map((r) => r.step));
  const folders = new Set(rows.filter((r) => r.path).map((r) => path.dirname(r.path!)));
  const lines: string[] = [];
  for (const folder of folders) {
    if (!fs.existsSync(folder)) continue;
    for (const name of fs.readdirSync(folder).sort()) {
      const step = stepOfFolder(name);
      if (step === undefined || recorded.has(step)) continue;
      const full = path.join(folder, name);
      if (!fs.statSync(full).isDirectory() || 'why' in checkpointIn(full, opts)) continue;
      lines.push(`run "${run}" step ${step}: ${full} is on disk but not in the store; not evaluated (resume the training run to record ` +
        `it, or evaluate the folder with --model ${folder})`);
    }
  }
  return lines;
}
