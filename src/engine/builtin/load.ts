// Loading a Hugging Face checkpoint folder into a BuiltinModel.
import fs from 'node:fs';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { UserError } from '../../errors.ts';
import { initBackend } from './backend.ts';
import { openWeights, readConfig, readJsonFile, weightFiles } from '../hf/checkpoint.ts';
import { weightsIdentity } from '../hf/identity.ts';
import { BuiltinModel, type EngineOptions } from './model.ts';
import { Params } from './params.ts';
import { modelSizeProblem } from './model-size.ts';
import { familyFor } from './registry.ts';
import { loadTokenizer, type HfTokenizer } from '../hf/tokenizer.ts';
import type { Arch, Family } from './families/family.ts';
import type { ParamSpec } from './params.ts';
import type { SafetensorsReader } from '../hf/safetensors.ts';

/** What loading reads before any weight: the config, the tokenizer, and where each expected tensor is. */
interface LoadPlan {
  configFile: string;
  config: Record<string, unknown>;
  family: Family;
  arch: Arch;
  tokenizer: HfTokenizer;
  files: string[];
  readers: SafetensorsReader[];
  /** Each expected tensor present in the files, with the name it has there and its reader (shapes checked). */
  found: { spec: ParamSpec; name: string; reader: SafetensorsReader }[];
}

/** Checks everything that does not need the weights' values; the readers stay open for the caller to close. */
function planLoad(dir: string, tokenizerDir: string | undefined, backend: string | undefined): LoadPlan {
  const configFile = path.join(dir, 'config.json');
  const config = readConfig(dir);
  const family = familyFor(config.model_type, configFile);
  const arch = family.parseConfig(config, configFile);
  const tooBig = modelSizeProblem(family, arch, backend);
  if (tooBig) throw new UserError(`${configFile}: ${tooBig}`);
  const tokenizer = loadTokenizer(tokenizerDir ?? dir);
  if (tokenizer.maxTokenId >= arch.vocabSize) {
    throw new UserError(`${path.join(tokenizerDir ?? dir, 'tokenizer.json')}: the tokenizer has token id ${tokenizer.maxTokenId}, ` +
      `but the model's vocabulary (${configFile} vocab_size) has ${arch.vocabSize} entries; the tokenizer does not belong to this model`);
  }
  const files = weightFiles(dir);
  const { readers, byName } = openWeights(dir);
  const where = files.length === 1 ? files[0] : path.join(dir, 'model.safetensors.index.json');
  const found: LoadPlan['found'] = [];
  try {
    for (const spec of family.params(arch)) {
      const name = [spec.name, ...(family.aliases?.(spec.name) ?? [])].find((n) => byName.has(n));
      if (!name) {
        if (spec.optional) continue;
        throw new UserError(`${where}: missing tensor "${spec.name}" (shape ${JSON.stringify(spec.shape)}), ` +
          `needed by model_type "${arch.modelType}"`);
      }
      const reader = byName.get(name)!;
      const shape = reader.shape(name)!;
      if (shape.length !== spec.shape.length || shape.some((d, i) => d !== spec.shape[i])) {
        throw new UserError(`${reader.file}: tensor "${name}" has shape ${JSON.stringify(shape)}; ` +
          `${configFile} implies ${JSON.stringify(spec.shape)}`);
      }
      found.push({ spec, name, reader });
    }
  } catch (err) {
    for (const r of readers) r.close();
    throw err;
  }
  return { configFile, config, family, arch, tokenizer, files, readers, found };
}

/**
 * Whether a folder would load, without reading any weight (config, model type, size, tokenizer,
 * every tensor's presence and shape from the safetensors headers): callers check before they
 * record anything, so a model that cannot load leaves nothing behind.
 */
export function checkModelFolder(dir: string, opts: { tokenizerDir?: string } = {}): void {
  for (const r of planLoad(dir, opts.tokenizerDir, undefined).readers) r.close();
}

/**
 * What a model folder is without its weights' values and without starting the engine: the id the
 * loaded model would report, its longest sequence and its tokenizer (what a finished training run
 * needs to prove it is finished with the same settings).
 */
export function describeModelFolder(dir: string, opts: { tokenizerDir?: string } = {}): { id: string; maxLength: number; tokenizer: HfTokenizer } {
  const plan = planLoad(dir, opts.tokenizerDir, undefined);
  for (const r of plan.readers) r.close();
  return { id: weightsIdentity(plan.files), maxLength: plan.arch.maxPositions, tokenizer: plan.tokenizer };
}

let loads = 0;

/** How many models loadModel has loaded in this process (the tests' proof that a resumed study loaded none). */
export function modelLoads(): number {
  return loads;
}

export async function loadModel(dir: string, opts: EngineOptions = {}): Promise<BuiltinModel> {
  loads++;
  const backend = await initBackend();
  const { config, family, arch, tokenizer, files, readers, found } = planLoad(dir, opts.tokenizerDir, backend);
  const tensors = new Map<string, tf.Tensor>();
  try {
    for (const { spec, name, reader } of found) {
      // One tensor at a time: its float32 copy is dropped as soon as tfjs holds it.
      const t = reader.read(name);
      tensors.set(spec.name, tf.tidy(() => {
        const x = tf.tensor(t.data, t.shape, 'float32');
        return spec.linear ? tf.transpose(x) : x;
      }));
    }
  } catch (err) {
    for (const t of tensors.values()) t.dispose();
    throw err;
  } finally {
    for (const r of readers) r.close();
  }
  const genFile = path.join(dir, 'generation_config.json');
  const generationConfig = fs.existsSync(genFile) ? readJsonFile(genFile) : undefined;
  return new BuiltinModel(weightsIdentity(files), dir, family, arch, new Params(tensors), tokenizer, config, opts, generationConfig);
}
