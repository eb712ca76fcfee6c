// Loading a Hugging Face checkpoint folder into a BuiltinModel.
import fs from 'node:fs';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { UserError } from '../../errors.ts';
import { initBackend } from './backend.ts';
import { openWeights, readConfig, readJsonFile, weightFiles } from './checkpoint.ts';
import { weightsIdentity } from './identity.ts';
import { BuiltinModel, type EngineOptions } from './model.ts';
import { Params } from './params.ts';
import { modelSizeProblem } from './model-size.ts';
import { familyFor } from './registry.ts';
import { loadTokenizer } from './tokenizer.ts';

export async function loadModel(dir: string, opts: EngineOptions = {}): Promise<BuiltinModel> {
  const backend = await initBackend();
  const configFile = path.join(dir, 'config.json');
  const config = readConfig(dir);
  const family = familyFor(config.model_type, configFile);
  const arch = family.parseConfig(config, configFile);
  const tooBig = modelSizeProblem(family, arch, backend);
  if (tooBig) throw new UserError(`${configFile}: ${tooBig}`);
  const tokenizer = loadTokenizer(opts.tokenizerDir ?? dir);
  if (tokenizer.maxTokenId >= arch.vocabSize) {
    throw new UserError(`${path.join(opts.tokenizerDir ?? dir, 'tokenizer.json')}: the tokenizer has token id ${tokenizer.maxTokenId}, ` +
      `but the model's vocabulary (${configFile} vocab_size) has ${arch.vocabSize} entries; the tokenizer does not belong to this model`);
  }
  const files = weightFiles(dir);
  const { readers, byName } = openWeights(dir);
  const where = files.length === 1 ? files[0] : path.join(dir, 'model.safetensors.index.json');
  const tensors = new Map<string, tf.Tensor>();
  try {
    for (const spec of family.params(arch)) {
      const found = [spec.name, ...(family.aliases?.(spec.name) ?? [])].find((n) => byName.has(n));
      if (!found) {
        if (spec.optional) continue;
        throw new UserError(`${where}: missing tensor "${spec.name}" (shape ${JSON.stringify(spec.shape)}), needed by model_type "${arch.modelType}"`);
      }
      const reader = byName.get(found)!;
      const shape = reader.shape(found)!;
      if (shape.length !== spec.shape.length || shape.some((d, i) => d !== spec.shape[i])) {
        throw new UserError(`${reader.file}: tensor "${found}" has shape ${JSON.stringify(shape)}; ${configFile} implies ${JSON.stringify(spec.shape)}`);
      }
      // One tensor at a time: its float32 copy is dropped as soon as tfjs holds it.
      const t = reader.read(found);
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
