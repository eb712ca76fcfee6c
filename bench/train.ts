// Training speed of genstudy against PyTorch (Debian's python3-torch, bench/train_reference.py, and a
// second PyTorch when GENSTUDY_BENCH_TORCH_PYTHON names its python, also through transformers' model
// classes and PEFT: side "transformers") on the same GPT-2-style model
// (4 layers, width 256, 4 heads, vocabulary 8192; transformers' initialisation), the same token ids
// (batches of 8 sequences of 64 tokens, loss at every position), AdamW and clipping, full fine-tuning
// and LoRA (r 8 on c_attn / c_proj): 50 timed optimiser steps after 2 warm-up steps, each side in its
// own process for its peak memory. genstudy runs on its native path (wasm + onnxruntime's matrix
// multiply) and on the wasm path alone; every side at one and at two threads (the wasm path once: it
// runs on one thread in Node). The first step's loss is reported by all, so they are seen to train
// the same model on the same data. Throughput per wall second and per CPU second (the latter holds up
// better when other work shares the machine); ratios compare sides measured in the same run. Also the
// whole trainer on a tiny model from scratch on the synthetic suite (tiny_*), on the default path.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateSuite, writeSuite } from '../src/synth/index.ts';
import { seededRandom } from '../src/seeded-random.ts';
import * as tf from '@tensorflow/tfjs-core';
import { initBackend } from '../src/engine/index.ts';
import { enableTrainingGradients } from '../src/engine/builtin/autograd/enable.ts';
import { initModel, tinyGpt2Config, train } from '../src/train/index.ts';
import { runJson, threadEnv, torchSides, wantedSides } from './engine.ts';
import { benchShapes, writeBenchModel, type BenchShape } from './model-shapes.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const STEPS = Number(process.env.GENSTUDY_BENCH_TRAIN_STEPS ?? 50), BATCH = 8, SEQ = 65, VOCAB = 8192;

/** A real shape's folder (bench/model-shapes.ts, random weights) with the same token ids as the bench model's. */
function writeShapeTrainModel(dir: string, shape: BenchShape): void {
  writeBenchModel(dir, { ...shape, seq: Math.max(shape.seq, SEQ) });
  const rng = seededRandom(5, 'bench-ids');
  const ids = Array.from({ length: BATCH * 8 }, () => Array.from({ length: SEQ }, () => rng.int(shape.vocab)));
  fs.writeFileSync(path.join(dir, 'ids.json'), JSON.stringify(ids));
}

export async function writeTrainBenchModel(dir: string): Promise<void> {
  const suite = generateSuite({ seed: 1, trainSize: 10, testSize: 2 });
  const tok = path.join(dir, 'tok');
  await writeSuite(tok, suite);
  await initModel({
    architectures: ['GPT2LMHeadModel'], model_type: 'gpt2', vocab_size: VOCAB, n_positions: 128, n_embd: 256, n_layer: 4, n_head: 4,
    activation_function: 'gelu_new', layer_norm_epsilon: 1e-5, initializer_range: 0.02, tie_word_embeddings: true, bos_token_id: 1, eos_token_id: 2,
  }, tok, 1, dir);
  const rng = seededRandom(5, 'bench-ids');
  const ids = Array.from({ length: BATCH * 8 }, () => Array.from({ length: SEQ }, () => rng.int(VOCAB)));
  fs.writeFileSync(path.join(dir, 'ids.json'), JSON.stringify(ids));
}

/**
 * The whole trainer (train()) on the synthetic suite with a tiny GPT-2-style model from scratch
 * (width 64, 2 layers, vocabulary of the suite), batch 16: tokens per second over the logged steps
 * and the loss before and after.
 */
async function benchTiny(out: Record<string, number | string>): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'genstudy-bench-tiny-'));
  const suite = generateSuite({ seed: 1, trainSize: 2000, testSize: 10 });
  await writeSuite(path.join(dir, 'suite'), suite);
  const config = tinyGpt2Config(suite.vocabulary.length, { hidden: 64, layers: 2 });
  const model = await initModel(config, path.join(dir, 'suite'), 1, path.join(dir, 'model'));
  for (const method of ['full', 'lora'] as const) {
    const r = await train({
      model, outDir: path.join(dir, method), task: suite.task, train: suite.train, method,
      lr: method === 'full' ? 1e-3 : 3e-3, batchSize: 16, maxSteps: STEPS,
      lora: { r: 8, alpha: 16, dropout: 0.1, targetModules: ['c_attn', 'c_proj'] }, checkpoints: { atStart: false },
    });
    const timed = r.log.slice(2);
    out[`tiny_${method}_tokens_per_s`] = timed.reduce((a, e) => a + e.tokensPerSecond, 0) / timed.length;
    out[`tiny_${method}_loss_first`] = r.log[0].loss;
    out[`tiny_${method}_loss_last`] = r.log.at(-1)!.loss;
  }
  fs.rmSync(dir, { recursive: true, force: true });
}

/**
 * The gradient of an embedding lookup (vocabulary 8192, width 256, 512 tokens) two ways on the
 * backend in use: the scatter-add kernel autograd/enable.ts registers (UnsortedSegmentSum), and the
 * alternative of a lookup as oneHot x matMul, whose gradient is a [vocab x tokens] x [tokens x width]
 * product. Median of 5, milliseconds.
 */
async function benchEmbeddingGradient(out: Record<string, number | string>): Promise<void> {
  await initBackend();
  enableTrainingGradients();
  const table = tf.variable(tf.randomNormal([VOCAB, 256], 0, 0.02, 'float32', 1));
  const rng = seededRandom(3, 'embedding-bench');
  const ids = tf.tensor1d(Array.from({ length: 512 }, () => rng.int(VOCAB)), 'int32');
  const w = tf.randomNormal([512, 256], 0, 1, 'float32', 2);
  const time = async (lookup: () => tf.Tensor) => {
    const ms: number[] = [];
    for (let i = 0; i < 6; i++) {
      const t0 = performance.now();
      const { value, grads } = tf.variableGrads(() => tf.sum(tf.mul(lookup(), w)) as tf.Scalar, [table]);
      await grads[table.name].data();
      if (i > 0) ms.push(performance.now() - t0);
      value.dispose();
      grads[table.name].dispose();
    }
    return ms.sort((a, b) => a - b)[2];
  };
  out.embedding_grad_segment_sum_ms = await time(() => tf.gather(table, ids));
  out.embedding_grad_onehot_matmul_ms = await time(() => tf.matMul(tf.oneHot(ids, VOCAB), table));
  out.backend = tf.getBackend();
  table.dispose(); ids.dispose(); w.dispose();
}

export async function benchTrain(): Promise<Record<string, number | string>> {
  const out: Record<string, number | string> = { steps: STEPS, tokens_per_step: BATCH * (SEQ - 1) };
  await benchEmbeddingGradient(out);
  if (process.env.GENSTUDY_BENCH_TRAIN_ONLY === 'embedding') return out;
  await benchTiny(out);
  for (const [name, shape] of benchShapes()) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'genstudy-bench-train-'));
    try {
      // The bench shape keeps its own model (4 x 256, transformers' initialisation) and earlier numbers.
      if (name === 'bench') await writeTrainBenchModel(dir);
      else writeShapeTrainModel(dir, shape);
      const r = benchTrainAt(dir);
      for (const [k, v] of Object.entries(r)) out[name === 'bench' ? k : `${name}_${k}`] = v;
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  return out;
}

/** Full and LoRA training on the model in `dir`, every side at one and two threads. */
function benchTrainAt(dir: string): Record<string, number | string> {
  const out: Record<string, number | string> = {};
  for (const method of ['full', 'lora']) {
    const args = [String(STEPS), String(BATCH)];
    const childArgs = ['--import', 'tsx', path.join(here, 'train-child.ts'), dir, method, ...args];
    const genstudy = (backend: string) => (n: number) => runJson(process.execPath, childArgs, { ...threadEnv(n), GENSTUDY_BACKEND: backend });
    const sides = wantedSides([
      { name: 'native', run: genstudy('native') },
      { name: 'wasm', run: genstudy('wasm') },
      ...torchSides([path.join(here, 'train_reference.py'), dir, method, ...args]),
    ]);
    for (const threads of [1, 2]) {
      const at: Record<string, Record<string, number | string>> = {};
      const key = (s: string) => `${method}_t${threads}_${s}`;
      for (const side of sides) {
        // wasm runs on one thread in Node whatever it is allowed: measured once.
        if (side.name === 'wasm' && threads > 1) continue;
        const r = side.run(threads);
        if (typeof r === 'string') { out[key(side.name)] = r; continue; }
        at[side.name] = r;
        for (const k of ['tokens_per_s', 'tokens_per_cpu_s', 'peak_rss_mb', 'first_loss', 'path']) {
          if (r[k] !== undefined) out[key(`${side.name}_${k}`)] = r[k];
        }
      }
      if (threads > 1 && out[`${method}_t1_wasm_tokens_per_s`] !== undefined) {
        at.wasm = {
          tokens_per_s: out[`${method}_t1_wasm_tokens_per_s`],
          tokens_per_cpu_s: out[`${method}_t1_wasm_tokens_per_cpu_s`],
          peak_rss_mb: out[`${method}_t1_wasm_peak_rss_mb`],
        };
      }
      const native = at.native;
      if (!native) continue;
      for (const [name, other] of Object.entries(at)) {
        if (name === 'native') continue;
        out[key(`ratio_native_vs_${name}_cpu`)] = Number(native.tokens_per_cpu_s) / Number(other.tokens_per_cpu_s);
        out[key(`ratio_native_vs_${name}_wall`)] = Number(native.tokens_per_s) / Number(other.tokens_per_s);
        out[key(`ratio_peak_rss_native_vs_${name}`)] = Number(native.peak_rss_mb) / Number(other.peak_rss_mb);
      }
    }
  }
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const [k, v] of Object.entries(await benchTrain())) console.log(`${k}\t${typeof v === 'number' ? +v.toPrecision(4) : v}`);
}
