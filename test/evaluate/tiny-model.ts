// Tiny random GPT-2-style checkpoints for the synthetic suite: its word-level tokenizer, a few
// thousand parameters, and "training steps" made by moving the weights along a fixed random
// direction, so consecutive checkpoints differ a little and predictions change along the run.
// Written with the engine's own safetensors writer, so each folder is a Hugging Face model folder.
import fs from 'node:fs';
import path from 'node:path';
import { gpt2 } from '../../src/engine/builtin/families/gpt2.ts';
import { writeSafetensors } from '../../src/engine/hf/safetensors.ts';
import { suiteTokenizerConfig, suiteTokenizerJson } from '../../src/synth/index.ts';
import { seededRandom } from '../../src/seeded-random.ts';

export interface TinyModelOptions {
  vocabulary: string[];
  seed: number;
  hidden?: number;
  layers?: number;
  positions?: number;
}

function gaussian(rng: { next(): number }): number {
  const u = Math.max(rng.next(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.next());
}

/** config.json of a tiny GPT-2 over the given vocabulary. */
export function tinyConfig(o: TinyModelOptions): Record<string, unknown> {
  const hidden = o.hidden ?? 32;
  return {
    architectures: ['GPT2LMHeadModel'], model_type: 'gpt2', vocab_size: o.vocabulary.length,
    n_positions: o.positions ?? 256, n_embd: hidden, n_layer: o.layers ?? 2, n_head: 2,
    activation_function: 'gelu_new', layer_norm_epsilon: 1e-5, tie_word_embeddings: true,
    bos_token_id: 1, eos_token_id: 2, torch_dtype: 'float32',
  };
}

/**
 * Writes checkpoints step-<s> for each step in `steps` under `runDir`: weights = base + s/100 *
 * direction, base and direction drawn from `seed`. Returns the checkpoint folders in step order.
 */
export function writeTinyRun(runDir: string, o: TinyModelOptions, steps: readonly number[]): string[] {
  const config = tinyConfig(o);
  const arch = gpt2.parseConfig(config, 'config.json');
  const rng = seededRandom(o.seed, 'tiny-model');
  const base = new Map<string, { shape: number[]; data: Float32Array }>();
  const direction = new Map<string, Float32Array>();
  for (const spec of gpt2.params(arch)) {
    const size = spec.shape.reduce((a, b) => a * b, 1);
    const data = new Float32Array(size);
    const dir = new Float32Array(size);
    const isNorm = /ln_\w+\.weight$/.test(spec.name);
    const isBias = spec.name.endsWith('.bias');
    for (let i = 0; i < size; i++) {
      data[i] = isNorm ? 1 : isBias ? 0 : gaussian(rng) * (spec.name.includes('wte') ? 0.5 : 0.2);
      dir[i] = isNorm || isBias ? 0 : gaussian(rng) * 0.2;
    }
    base.set(spec.name, { shape: spec.shape, data });
    direction.set(spec.name, dir);
  }
  const tokenizer = JSON.stringify(suiteTokenizerJson({ vocabulary: o.vocabulary }));
  const tokenizerConfig = JSON.stringify(suiteTokenizerConfig({ vocabulary: o.vocabulary }));
  const dirs: string[] = [];
  for (const step of steps) {
    const dir = path.join(runDir, `step-${step}`);
    fs.mkdirSync(dir, { recursive: true });
    const tensors = new Map<string, { shape: number[]; data: Float32Array }>();
    for (const [name, t] of base) {
      const d = direction.get(name)!;
      const data = new Float32Array(t.data.length);
      for (let i = 0; i < data.length; i++) data[i] = t.data[i] + (step / 100) * d[i];
      tensors.set(name, { shape: t.shape, data });
    }
    writeSafetensors(path.join(dir, 'model.safetensors'), tensors);
    fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config, null, 2));
    fs.writeFileSync(path.join(dir, 'tokenizer.json'), tokenizer);
    fs.writeFileSync(path.join(dir, 'tokenizer_config.json'), tokenizerConfig);
    dirs.push(dir);
  }
  return dirs;
}
