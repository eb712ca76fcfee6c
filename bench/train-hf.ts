// Training speed of the hf backend (transformers' Trainer through runner.py, one process, CPU)
// against the built-in trainer on the same model, data and settings: a GPT-2-style model from
// scratch (width 256, 4 layers) on the synthetic suite, batch 16, full fine-tuning and LoRA, no
// checkpoints. Tokens per second = input tokens of the run / seconds of the training loop (the
// built-in trainer's summed step times; the Trainer's own train_runtime), both on one thread
// (OMP/OpenBLAS/MKL pinned, as bench/train.ts). The Python is $GENSTUDY_HF_PYTHON, else the
// .cache/hf-venv the e2e tests create; without one the bench says so and measures nothing.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateSuite, writeSuite } from '../src/synth/index.ts';
import { initModel, tinyGpt2Config, train, type TrainOptions } from '../src/train/index.ts';
import { trainHf } from '../src/train/hf/index.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const STEPS = Number(process.env.GENSTUDY_BENCH_TRAIN_STEPS ?? 30);
const ONE_THREAD = { OMP_NUM_THREADS: '1', OPENBLAS_NUM_THREADS: '1', MKL_NUM_THREADS: '1' };

function python(): string | undefined {
  const candidates = [process.env.GENSTUDY_HF_PYTHON, path.join(repoRoot, '.cache/hf-venv/bin/python')].filter((p): p is string => !!p);
  return candidates.find((p) => spawnSync(p, ['-c', 'import torch, transformers, peft, accelerate'], { stdio: 'ignore' }).status === 0);
}

export async function benchTrainHf(): Promise<Record<string, number | string>> {
  const py = python();
  if (!py) {
    return {
      skipped: 'no Python with torch, transformers, peft, accelerate: ' +
        'set GENSTUDY_HF_PYTHON or run npm run test:e2e once (it creates .cache/hf-venv)',
    };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'genstudy-bench-hf-'));
  const suite = generateSuite({ seed: 1, trainSize: 2000, testSize: 10 });
  await writeSuite(path.join(dir, 'suite'), suite);
  const config = tinyGpt2Config(suite.vocabulary.length, { hidden: 256, layers: 4 });
  const model = await initModel(config, path.join(dir, 'suite'), 1, path.join(dir, 'model'));
  const out: Record<string, number | string> = { steps: STEPS };
  Object.assign(process.env, ONE_THREAD);
  for (const method of ['full', 'lora'] as const) {
    const o: TrainOptions = {
      model, task: suite.task, train: suite.train, method, outDir: '', lr: 1e-3, batchSize: 16, maxSteps: STEPS, seed: 1, modelDropout: false,
      lora: method === 'lora' ? { r: 8, alpha: 16, dropout: 0, targetModules: ['c_attn', 'c_proj'] } : undefined,
      checkpoints: { atStart: false, atEnd: false },
    };
    const builtin = await train({ ...o, outDir: path.join(dir, `builtin-${method}`) });
    const hf = await trainHf({ ...o, outDir: path.join(dir, `hf-${method}`) }, { launcher: 'python', python: py }, { onOutput: () => undefined });
    // The steps' input tokens, from the prepared run (the same sequences and order as the built-in trainer's).
    const seqLength = fs.readFileSync(path.join(hf.prepared.dir, 'sequences.jsonl'), 'utf8').trim().split('\n')
      .map((l) => (JSON.parse(l) as { input_ids: number[] }).input_ids.length);
    const stream = JSON.parse(fs.readFileSync(path.join(hf.prepared.dir, 'batches.json'), 'utf8')) as number[][];
    const stepTokens = builtin.log.map((_, i) => stream.slice(i, i + 1).flat().reduce((n, j) => n + seqLength[j], 0));
    const seconds = builtin.log.reduce((t, e, i) => t + stepTokens[i] / e.tokensPerSecond, 0);
    const builtinRate = hf.prepared.inputTokens / seconds;
    const state = JSON.parse(fs.readFileSync(path.join(dir, `hf-${method}`, 'trainer_state.json'), 'utf8')) as {
      log_history: { train_runtime?: number }[];
    };
    const runtime = state.log_history.find((e) => e.train_runtime !== undefined)!.train_runtime!;
    const inputTokens = hf.prepared.inputTokens;
    out[`${method}_builtin_tokens_per_s`] = builtinRate;
    out[`${method}_hf_tokens_per_s`] = inputTokens / runtime;
    out[`${method}_hf_over_builtin`] = inputTokens / runtime / builtinRate;
    out[`${method}_first_loss_builtin`] = builtin.log[0].loss;
    out[`${method}_first_loss_hf`] = hf.log[0].loss;
  }
  fs.rmSync(dir, { recursive: true, force: true });
  return out;
}
