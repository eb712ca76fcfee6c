// Speed of the built-in engine's scoring against PyTorch (Debian's python3-torch, bench/engine_reference.py,
// and a second PyTorch when GENSTUDY_BENCH_TORCH_PYTHON names its python) on the same GPT-2-style model
// (6 layers, width 256, 4 heads, vocabulary 8192, sequences of 128 tokens), with the same weights (one
// safetensors file read by both) and the same token ids. The engine runs on its native path (wasm +
// onnxruntime kernels) and on the wasm path alone, each side at one and at two threads (wasm runs on
// one thread in Node whatever it is allowed, so it is measured once). Each side scores 64 sequences of
// 128 tokens, context 64 + continuation 64, and prints the summed log-probability so the numbers are
// checked to agree, not only timed. Peak memory is each process's maximum resident set size (every
// side runs in a child process). Throughput is reported per wall-clock second and per CPU second of
// the process: the CPU-time figures hold up better when other work shares the machine; ratios compare
// sides measured in the same run.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as tf from '@tensorflow/tfjs-core';
import { enginePath, loadModel } from '../src/engine/index.ts';
import { scoreEncoded } from '../src/engine/builtin/scoring.ts';
import { writeSafetensors } from '../src/engine/hf/safetensors.ts';

/**
 * The environment of a side allowed `n` threads: GENSTUDY_THREADS for the engine, GENSTUDY_BENCH_THREADS
 * (torch.set_num_threads) for the references, and the OpenBLAS / OpenMP / MKL pools pinned to the same
 * number (torch.set_num_threads alone leaves pools that were seen using another core).
 */
export function threadEnv(n: number): Record<string, string> {
  const v = String(n);
  return { GENSTUDY_THREADS: v, GENSTUDY_BENCH_THREADS: v, OMP_NUM_THREADS: v, OPENBLAS_NUM_THREADS: v, MKL_NUM_THREADS: v };
}

const LAYERS = 6, WIDTH = 256, HEADS = 4, VOCAB = 8192, SEQ = 128, N = 64, CONT = 64;
const here = path.dirname(fileURLToPath(import.meta.url));

/** Deterministic normal numbers (mulberry32 + Box-Muller). */
function normals(seed: number): () => number {
  let a = seed >>> 0;
  const u = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return () => Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u());
}

/** GPT-2's byte-to-character table, for a 256-token byte-level tokenizer without merges. */
function byteLevelVocab(): Record<string, number> {
  const bs: number[] = [];
  for (let b = 33; b <= 126; b++) bs.push(b);
  for (let b = 161; b <= 172; b++) bs.push(b);
  for (let b = 174; b <= 255; b++) bs.push(b);
  const cs = [...bs];
  let n = 0;
  for (let b = 0; b < 256; b++) if (!bs.includes(b)) { bs.push(b); cs.push(256 + n++); }
  const vocab: Record<string, number> = {};
  bs.forEach((b, i) => { vocab[String.fromCodePoint(cs[i])] = b; });
  return vocab;
}

export function writeBenchModel(dir: string): void {
  const rand = normals(7);
  const tensors = new Map<string, { shape: number[]; data: Float32Array }>();
  const add = (name: string, shape: number[], std: number, mean = 0) => {
    const data = new Float32Array(shape.reduce((a, b) => a * b, 1));
    for (let i = 0; i < data.length; i++) data[i] = mean + std * rand();
    tensors.set(name, { shape, data });
  };
  const h = WIDTH, p = 'transformer.';
  add(`${p}wte.weight`, [VOCAB, h], 0.02);
  add(`${p}wpe.weight`, [SEQ, h], 0.01);
  add(`${p}ln_f.weight`, [h], 0.05, 1);
  add(`${p}ln_f.bias`, [h], 0.05);
  for (let i = 0; i < LAYERS; i++) {
    const l = `${p}h.${i}.`;
    add(`${l}ln_1.weight`, [h], 0.05, 1); add(`${l}ln_1.bias`, [h], 0.05);
    add(`${l}attn.c_attn.weight`, [h, 3 * h], 0.02); add(`${l}attn.c_attn.bias`, [3 * h], 0.01);
    add(`${l}attn.c_proj.weight`, [h, h], 0.02); add(`${l}attn.c_proj.bias`, [h], 0.01);
    add(`${l}ln_2.weight`, [h], 0.05, 1); add(`${l}ln_2.bias`, [h], 0.05);
    add(`${l}mlp.c_fc.weight`, [h, 4 * h], 0.02); add(`${l}mlp.c_fc.bias`, [4 * h], 0.01);
    add(`${l}mlp.c_proj.weight`, [4 * h, h], 0.02); add(`${l}mlp.c_proj.bias`, [h], 0.01);
  }
  writeSafetensors(path.join(dir, 'model.safetensors'), tensors);
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({
    architectures: ['GPT2LMHeadModel'], model_type: 'gpt2', vocab_size: VOCAB, n_positions: SEQ, n_embd: WIDTH,
    n_layer: LAYERS, n_head: HEADS, n_inner: null, activation_function: 'gelu_new', layer_norm_epsilon: 1e-5,
    tie_word_embeddings: true, bos_token_id: 0, eos_token_id: 0,
  }));
  fs.writeFileSync(path.join(dir, 'tokenizer.json'), JSON.stringify({
    version: '1.0', added_tokens: [], normalizer: null,
    pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
    post_processor: null, decoder: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
    model: { type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: null, end_of_word_suffix: null, fuse_unk: false, byte_fallback: false, vocab: byteLevelVocab(), merges: [] },
  }));
  fs.writeFileSync(path.join(dir, 'tokenizer_config.json'), JSON.stringify({ tokenizer_class: 'PreTrainedTokenizerFast' }));
}

export function benchSequences(): number[][] {
  const rand = normals(11);
  return Array.from({ length: N }, () => Array.from({ length: SEQ }, () => Math.floor(Math.abs(rand() * 1e6)) % VOCAB));
}

const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };

/** The bench model's matrix-product shapes: [m, k] x [k, n] (MLP in, MLP out, lm head). */
export const PRODUCTS: [number, number, number][] = [[1024, 256, 1024], [1024, 1024, 256], [512, 256, 8192]];

/** GFLOP per CPU-second of one tf.matMul of each shape on the path in use (best of 5 after warm-up). */
function matMulGflops(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [m, k, n] of PRODUCTS) {
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
    ...matMulGflops(),
  };
}

export function runJson(cmd: string, args: string[], env: Record<string, string>): Record<string, number | string> | string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', env: { ...process.env, ...env }, cwd: path.resolve(here, '..'), maxBuffer: 1 << 24 });
  if (r.status !== 0) return `failed: ${(r.stderr || r.error?.message || '').trim().split('\n').pop()}`;
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, number | string>;
}

/** The sides of a comparison: the engine's two paths and the PyTorch references. */
export interface Side { name: string; run(threads: number): Record<string, number | string> | string }

/** Debian's PyTorch and, when GENSTUDY_BENCH_TORCH_PYTHON names one, a second: `args` is the script and its arguments. */
export function torchSides(args: string[]): Side[] {
  const sides: Side[] = [{ name: 'pytorch', run: (n) => runJson('/usr/bin/python3', args, threadEnv(n)) }];
  // Optionally a second PyTorch (e.g. a current wheel in a virtual environment), whose CPU kernels
  // can be much faster than Debian's build: GENSTUDY_BENCH_TORCH_PYTHON=/path/to/python.
  const other = process.env.GENSTUDY_BENCH_TORCH_PYTHON;
  if (other) sides.push({ name: 'other_pytorch', run: (n) => runJson(other, args, threadEnv(n)) });
  return sides;
}

export async function benchEngine(): Promise<Record<string, number | string>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'genstudy-bench-engine-'));
  try {
    writeBenchModel(dir);
    fs.writeFileSync(path.join(dir, 'ids.json'), JSON.stringify(benchSequences()));
    const batchTokens = Number(process.env.GENSTUDY_BENCH_BATCH_TOKENS ?? 8 * SEQ);
    const engine = (backend: string) => (n: number) => runJson(process.execPath, ['--import', 'tsx', path.join(here, 'engine.ts'), '--measure', dir, String(batchTokens)], { ...threadEnv(n), GENSTUDY_BACKEND: backend });
    const reference = [path.join(here, 'engine_reference.py'), dir, String(CONT), String(batchTokens / SEQ), PRODUCTS.map((p) => p.join('x')).join(',')];
    const sides: Side[] = [{ name: 'native', run: engine('native') }, { name: 'wasm', run: engine('wasm') }, ...torchSides(reference)];
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
