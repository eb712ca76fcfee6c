// The models a run starts from: Hugging Face folders named by path (checked before anything runs)
// and from-scratch models (`models[].init`, `genstudy train --init`), built once per folder from a
// tokenizer's vocabulary and refused before anything is written when too large to allocate.
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../errors.ts';
import type { StudyModel } from '../config/schema.ts';
import { familyFor, modelSizeProblem, type InitFamily } from '../engine/index.ts';
import { initModel, tinyConfig } from '../train/index.ts';
import { repoFolderName } from '../data/hub.ts';

/** Every from-scratch model of a study starts from the same weights, whatever the run's seed (which orders the data). */
const STUDY_INIT_SEED = 0;

/** A from-scratch model: one of the families that offer it (INIT_FAMILIES, the engine registry's) and its shape. */
export interface ScratchModel { family: InitFamily; layers?: number; hidden?: number; heads?: number }

/** A from-scratch model's config.json, its vocabulary that of the tokenizer in `tokenizerDir`. */
function scratchConfig(m: ScratchModel, tokenizerDir: string): Record<string, unknown> {
  const vocab = JSON.parse(fs.readFileSync(path.join(tokenizerDir, 'tokenizer.json'), 'utf8')) as {
    model: { vocab: Record<string, number> }; added_tokens?: { id: number }[] };
  const vocabSize = Math.max(...Object.values(vocab.model.vocab), ...(vocab.added_tokens ?? []).map((t) => t.id)) + 1;
  const shape = { layers: m.layers, hidden: m.hidden, heads: m.heads };
  return tinyConfig(m.family, vocabSize, shape);
}

/** Refuses a from-scratch config too large to allocate (or malformed), each message starting with `field`. */
function checkScratchSize(config: Record<string, unknown>, field: string): void {
  const family = familyFor(config.model_type, field);
  let problem: string | undefined;
  try {
    problem = modelSizeProblem(family, family.parseConfig(config, field));
  } catch (err) {
    if (err instanceof UserError) throw new UserError(err.message.startsWith(field) ? err.message : `${field}: ${err.message}`);
    throw err;
  }
  if (problem) throw new UserError(`${field}: ${problem}`);
}

/** The from-scratch model in `dir`, written there unless a model already is (a resumed run keeps its start). */
export async function buildScratchModel(m: ScratchModel, tokenizerDir: string, seed: number, dir: string): Promise<string> {
  if (!fs.existsSync(path.join(dir, 'config.json'))) await initModel(scratchConfig(m, tokenizerDir), tokenizerDir, seed, dir);
  return dir;
}

/**
 * Models named by path must be there before anything runs; every missing one is reported at once,
 * each with the command that downloads it.
 */
export function checkModelsPresent(models: readonly StudyModel[], studyDir: string, studyFile: string): void {
  const missing = models.filter((m) => m.path !== undefined && !fs.existsSync(path.join(path.resolve(studyDir, m.path), 'config.json')));
  if (missing.length === 0) return;
  const lines = missing.map((m) => {
    const dir = path.resolve(studyDir, m.path!);
    const pull = m.hub
      ? `genstudy data pull ${m.hub} --repo-type model`
      : 'genstudy data pull <hub id> --repo-type model (the study names no models[].hub)';
    const smaller = m.smaller ? `; to try the pipeline on a small machine first: genstudy data pull ${m.smaller} --repo-type model` : '';
    return `  - "${m.id}": ${dir} has no config.json. Download: ${pull}${smaller}`;
  });
  throw new UserError(`${studyFile}: ${missing.length} of ${models.length} model(s) missing ` +
    `(a Hugging Face model folder is needed for each):\n${lines.join('\n')}\n` +
    'Then point each models[].path at the snapshot folder the pull prints (or pass --set models.N.path=DIR). ' +
    'Gated models (Llama, some OLMo and Gemma releases) need the licence accepted on the hub and a token: export HF_TOKEN=hf_... before the pull.');
}

/**
 * A model named both by path and by hub id whose folder says it is another model: the hub cache's
 * folder name (models--org--name, as `genstudy data pull` and huggingface_hub lay snapshots out) or
 * config.json's `_name_or_path` naming a different hub id. A study that reports one model's scores
 * under another's name is wrong without a word, so each is said (the run goes on: a folder may be a
 * re-upload or a fine-tune of the named model).
 */
export function modelIdentityWarnings(models: readonly StudyModel[], studyDir: string): string[] {
  const out: string[] = [];
  for (const m of models) {
    if (m.path === undefined || m.hub === undefined) continue;
    const dir = path.resolve(studyDir, m.path);
    const expected = repoFolderName(m.hub, 'model');
    const cached = dir.split(path.sep).find((segment) => segment.startsWith('models--'));
    if (cached !== undefined && cached.toLowerCase() !== expected.toLowerCase()) {
      out.push(`model "${m.id}": ${dir} is the hub snapshot of ${cached.slice('models--'.length).split('--').join('/')}, ` +
        `but the study names models[].hub ${m.hub}`);
      continue;
    }
    let named: unknown;
    try {
      named = (JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8')) as { _name_or_path?: unknown })._name_or_path;
    } catch {
      continue; // a config.json that does not parse is the loader's error to give, with its line
    }
    // a hub id (org/name), not a local path the config was saved from
    if (typeof named === 'string' && /^[\w.-]+\/[\w.-]+$/.test(named) && named.toLowerCase() !== m.hub.toLowerCase()) {
      out.push(`model "${m.id}": ${path.join(dir, 'config.json')} says it is ${named} (_name_or_path), but the study names models[].hub ${m.hub}`);
    }
  }
  return out;
}

export interface StudyModelDirs { studyDir: string; suiteDir?: string; modelsDir: string }

/** The folder a study model's tokenizer comes from: the synthetic suite's, or a folder beside the study. */
function initTokenizerDir(m: StudyModel, o: StudyModelDirs): string {
  const tokenizerDir = m.init!.tokenizer === 'synthetic' ? o.suiteDir : path.resolve(o.studyDir, m.init!.tokenizer);
  if (!tokenizerDir) throw new UserError(`model "${m.id}": init.tokenizer "synthetic" needs a "synthetic:" section in the study`);
  return tokenizerDir;
}

/** A study's from-scratch models too large to allocate are refused before any run starts, naming the study's field. */
export function checkStudyInitSizes(models: readonly StudyModel[], o: StudyModelDirs & { studyFile: string }): void {
  models.forEach((m, index) => {
    if (m.init === undefined) return;
    const field = `${o.studyFile}: models[${index}] "${m.id}" init (layers ${m.init.layers}, hidden ${m.init.hidden}, heads ${m.init.heads})`;
    checkScratchSize(scratchConfig(m.init, initTokenizerDir(m, o)), field);
  });
}

/** The folder a study model runs from: its path, or its from-scratch build under the study's models/ folder. */
export async function studyModelDir(m: StudyModel, o: StudyModelDirs): Promise<string> {
  if (m.path !== undefined) return path.resolve(o.studyDir, m.path);
  return buildScratchModel(m.init!, initTokenizerDir(m, o), STUDY_INIT_SEED, path.join(o.modelsDir, m.id));
}
