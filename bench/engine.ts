// Speed of the built-in engine's scoring against PyTorch (Debian's python3-torch, bench/engine_reference.py,
// and a second PyTorch when GENSTUDY_BENCH_TORCH_PYTHON names its python, also through transformers'
// own model classes scored as lm-evaluation-harness does: side "transformers") at the model shapes of
// bench/model-shapes.ts (GENSTUDY_BENCH_SHAPES: the 6 x 256 bench model by default, SmolLM-135M's and
// GPT-2 small's), with the same weights (one safetensors file read by both) and the same token ids.
// The engine runs on its native path (wasm + onnxruntime kernels) and on the wasm path alone, each
// side at one and at two threads (wasm runs on one thread in Node whatever it is allowed, so it is
// measured once). Each side scores the shape's sequences (bench: 64 x 128 tokens, the last 64 the
// continuation; real shapes: 36 x 256, the last 64) in batches of 1024 tokens, and prints the summed
// log-probability so the numbers are checked to agree, not only timed. Peak memory is each process's
// maximum resident set size (every side runs in a child process). Throughput is reported per
// wall-clock second and per CPU second of the process: the CPU-time figures hold up better when other
// work shares the machine; ratios compare sides measured in the same run. `--measure <folder>
// <batch tokens>` runs the engine's side alone; with GENSTUDY_BENCH_PACKED=0 its products take the
// weights as inputs (native/packed-weights.ts off), for comparing the two in one sitting.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as tf from '@tensorflow/tfjs-core';
import { enginePath, loadModel } from '../src/engine/index.ts';
import { scoreEncoded } from '../src/engine/builtin/scoring.ts';
import { setWeightPacking } from '../src/engine/builtin/native/packed-weights.ts';
import { benchSequences, benchShapes, writeBenchModel, type BenchShape } from './model-shapes.ts';

/**
 * The environment of a side allowed `n` threads: GENSTUDY_THREADS for the engine, GENSTUDY_BENCH_THREADS
 * (torch.set_num_threads) for the references, and the OpenBLAS / OpenMP / MKL pools pinned to the same
 * number (torch.set_num_threads alone leaves pools that were seen using another core).
 */
export function threadEnv(n: number): Record<string, string> {
  const v = String(n);
  return { GENSTUDY_THREADS: v, GENSTUDY_BENCH_THREADS: v, OMP_NUM_THREADS: v, OPENBLAS_NUM_THREADS: v, MKL_NUM_THREADS: v };
}

const here = path.dirname(fileURLToPath(import.meta.url));

const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };

/** A shape's matrix-product shapes at 1024 rows: [m, k] x [k, n] (MLP in, MLP out, lm head on half the rows). */
export function products(s: BenchShape): [number, number, number][] {
  return [[1024, s.width, s.inner], [1024, s.inner, s.width], [512, s.width, s.vocab]];
}

/** GFLOP per CPU-second of one tf.matMul of each shape on the path in use (best of 5 after warm-up). */
function matMulGflops(s: BenchShape): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [m, k, n] of products(s)) {
    const a = tf.randomNormal([m, k], 0, 1, 'float32', 1);
    const b = tf.randomNormal([k, n], 0, 1, 'float32', 2);
    let best = Infinity;
    for (let rep = 0; rep < 6; rep++) {
      const c0 = cpuMs();
      const c = tf.matMul(a, b);
      c.dataSync();
      if (rep > 0) best = Math.min(best, cpuMs() - c0);
      c.dispose();
    }
    out[`matmul_${m}x${k}x${n}_gflop_per_cpu_s`] = (2 * m * k * n) / (best / 1000) / 1e9;
    tf.dispose([a, b]);
  }
  return out;
}

/** The engine's side, run in a child process so that its peak memory is its own. */
async function measureEngine(dir: string, batchTokens: number): Promise<Record<string, number | string>> {
  const seqs = JSON.parse(fs.readFileSync(path.join(dir, 'ids.json'), 'utf8')) as number[][];
  const shape = JSON.parse(fs.readFileSync(path.join(dir, 'shape.json'), 'utf8')) as BenchShape;
  const SEQ = shape.seq, CONT = shape.cont;
  setWeightPacking(process.env.GENSTUDY_BENCH_PACKED !== '0');
  const model = await loadModel(dir, { maxBatchTokens: batchTokens });
  const pairs = seqs.map((s) => ({ input: s.slice(0, -1), targets: s.slice(SEQ - CONT) }));
  await scoreEncoded(model, pairs.slice(0, batchTokens / SEQ)); // warm-up: kernels, caches
  let best = Infinity, bestCpu = Infinity, sum = 0;
  for (let rep = 0; rep < 3; rep++) {
    const t0 = performance.now(), c0 = cpuMs();
    const res = await scoreEncoded(model, pairs);
    best = Math.min(best, performance.now() - t0);
    bestCpu = Math.min(bestCpu, cpuMs() - c0);
    sum = res.reduce((a, r) => a + r.logprob, 0);
  }
  const tokens = seqs.length * SEQ;
  return {
    path: enginePath(),
    score_tokens_per_s: tokens / (best / 1000),
    score_tokens_per_cpu_s: tokens / (bestCpu / 1000),
    peak_rss_mb: process.resourceUsage().maxRSS / 1024,
    logprob_sum: sum,
    ...matMulGflops(shape),
  };
}

export function runJson(cmd: string, args: string[], env: Record<string, string>): Record<string, number | string> | string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', env: { ...process.env, ...env }, cwd: path.resolve(here, '..'), maxBuffer: 1 << 24 });
  if (r.status !== 0) return `failed: ${(r.stderr || r.error?.message || '').trim().split('\n').pop()}`;
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, number | string>;
}

/** The sides of a comparison: the engine's two paths and the PyTorch references. */
export interface Side { name: string; run(threads: number): Record<string, number | string> | string }

/** The sides named in GENSTUDY_BENCH_SIDES (a comma list, e.g. native,other_pytorch), all by default. */
export function wantedSides(sides: Side[]): Side[] {
  const names = process.env.GENSTUDY_BENCH_SIDES?.split(',').map((s) => s.trim()).filter(Boolean);
  return names?.length ? sides.filter((s) => names.includes(s.name)) : sides;
}

/**
 * Debian's PyTorch and, when GENSTUDY_BENCH_TORCH_PYTHON names one, a second, both on the lean reference
 * forward, and that second one through transformers: `args` is the script and its arguments.
 */
export function torchSides(args: string[]): Side[] {
  const sides: Side[] = [{ name: 'pytorch', run: (n) => runJson('/usr/bin/python3', args, threadEnv(n)) }];
  // Optionally a second PyTorch (e.g. a current wheel in a virtual environment), whose CPU kernels
  // can be much faster than Debian's build: GENSTUDY_BENCH_TORCH_PYTHON=/path/to/python.
  const other = process.env.GENSTUDY_BENCH_TORCH_PYTHON;
  if (other) sides.push({ name: 'other_pytorch', run: (n) => runJson(other, args, threadEnv(n)) });
  // The same PyTorch through transformers' own model classes (and PEFT's LoRA): what a researcher runs
  // without genstudy (lm-evaluation-harness's HFLM for scoring, the Trainer for training).
  if (other) sides.push({ name: 'transformers', run: (n) => runJson(other, args, { ...threadEnv(n), GENSTUDY_BENCH_REFERENCE: 'transformers' }) });
  return sides;
}

export async function benchEngine(): Promise<Record<string, number | string>> {
  const out: Record<string, number | string> = {};
  for (const [name, shape] of benchShapes()) {
    const r = await benchEngineAt(shape);
    for (const [k, v] of Object.entries(r)) out[name === 'bench' ? k : `${name}_${k}`] = v;
  }
  return out;
}

/** Every side at one and two threads on one shape (random weights written once, read by all). */
async function benchEngineAt(shape: BenchShape): Promise<Record<string, number | string>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'genstudy-bench-engine-'));
  const SEQ = shape.seq, CONT = shape.cont, PRODUCTS = products(shape);
  try {
    writeBenchModel(dir, shape);
    fs.writeFileSync(path.join(dir, 'ids.json'), JSON.stringify(benchSequences(shape)));
    fs.writeFileSync(path.join(dir, 'shape.json'), JSON.stringify(shape));
    const batchTokens = Number(process.env.GENSTUDY_BENCH_BATCH_TOKENS ?? 1024);
    const measureArgs = ['--import', 'tsx', path.join(here, 'engine.ts'), '--measure', dir, String(batchTokens)];
    const engine = (backend: string) => (n: number) => runJson(process.execPath, measureArgs, { ...threadEnv(n), GENSTUDY_BACKEND: backend });
    const productList = PRODUCTS.map((p) => p.join('x')).join(',');
    const reference = [path.join(here, 'engine_reference.py'), dir, String(CONT), String(batchTokens / SEQ), productList];
    const sides = wantedSides([{ name: 'native', run: engine('native') }, { name: 'wasm', run: engine('wasm') }, ...torchSides(reference)]);
    const out: Record<string, number | string> = {};
    for (const threads of [1, 2]) {
      const at: Record<string, Record<string, number | string>> = {};
      for (const side of sides) {
        // wasm runs on one thread in Node whatever it is allowed: measured once.
        if (side.name === 'wasm' && threads > 1) continue;
        const r = side.run(threads);
        if (typeof r === 'string') { out[`t${threads}_${side.name}`] = r; continue; }
        at[side.name] = r;
        for (const [k, v] of Object.entries(r)) out[`t${threads}_${side.name}_${k}`] = v;
      }
      const native = at.native;
      if (!native) continue;
      for (const [name, other] of Object.entries(at)) {
        if (name === 'native') continue;
        out[`t${threads}_ratio_native_vs_${name}_cpu`] = Number(native.score_tokens_per_cpu_s) / Number(other.score_tokens_per_cpu_s);
        out[`t${threads}_ratio_native_vs_${name}_wall`] = Number(native.score_tokens_per_s) / Number(other.score_tokens_per_s);
        out[`t${threads}_logprob_sum_abs_difference_vs_${name}`] = Math.abs(Number(native.logprob_sum) - Number(other.logprob_sum));
        if (name !== 'wasm') out[`t${threads}_ratio_peak_rss_vs_${name}`] = Number(native.peak_rss_mb) / Number(other.peak_rss_mb);
        for (const [m, k, n] of PRODUCTS) {
          const g = `matmul_${m}x${k}x${n}_gflop_per_cpu_s`;
          out[`t${threads}_ratio_native_vs_${name}_${g}`] = Number(native[g]) / Number(other[g]);
        }
      }
      const wasm = out.t1_wasm_score_tokens_per_cpu_s;
      if (threads > 1 && wasm !== undefined) {
        out[`t${threads}_ratio_native_vs_wasm_cpu`] = Number(native.score_tokens_per_cpu_s) / Number(wasm);
        out[`t${threads}_ratio_native_vs_wasm_wall`] = Number(native.score_tokens_per_s) / Number(out.t1_wasm_score_tokens_per_s);
      }
    }
    return out;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--measure') {
  console.log(JSON.stringify(await measureEngine(process.argv[3], Number(process.argv[4]))));
}
