// What `genstudy serve --max-loras` holds in memory under churn: the resident memory (RSS) of a
// serve process over 200 LoRA load / unload cycles (--max-loras 2; each cycle's adapter unloaded
// while its request is answered, plus one adapter kept loaded) and over 200 completions alternating
// two adapters (--mimic vllm --max-loras 1, sent in pairs, so each pair wants both adapters while
// only one copy may be held), on a ~118 MB Llama-shaped model with random weights.
//
// Reported per part: the process's RSS after start and one answered request on the base model
// (base), its high-water mark over the part (peak: the kernel's VmHWM, so transients between reads
// count), its RSS at the end, and the bound the memory contract allows (docs/remote.md): base +
// (max_loras + 1) served copies of the model, a served copy being at most its float32 weights and,
// on the native path, their packed copies (as much again: engine/builtin/native/packed-weights.ts). The
// RSS growth from one copy is not measured instead: freed memory stays with the process (the wasm
// heap never shrinks) and is reused, so the first copy's growth depends on what loading left free.
// Linux only (/proc/<pid>/status).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServe, type Serve } from './serve-process.ts';
import { enginePath, initBackend, loadModel, LoraAdapters } from '../src/engine/index.ts';
import { writeBenchModel, type BenchShape } from './model-shapes.ts';

const CYCLES = 200;
const MiB = 2 ** 20;

// Llama (vLLM serves no LoRA on GPT-2, and the second part runs the vLLM profile): 8 x 512, SwiGLU
// 1376, vocabulary 8192: 29.4 M parameters, 118 MB in float32.
const SHAPE: BenchShape = { family: 'llama', layers: 8, width: 512, heads: 8, kvHeads: 8, inner: 1376, vocab: 8192, seq: 16, cont: 1, n: 1 };

/**
 * Every linear layer: a merged copy shares the weights its adapter leaves alone with the base model
 * (a tfjs clone shares the data), so adapting them all makes a copy as large as it gets, 101 of the
 * 118 MB (the tied embedding stays shared).
 */
const ADAPTED = ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'];

async function stop(s: Serve): Promise<void> {
  const exited = new Promise((r) => s.child.once('exit', r));
  s.child.kill('SIGTERM');
  await exited;
}

/** The process's resident memory now and its high-water mark, in bytes. */
function memoryOf(pid: number): { rss: number; hwm: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)![1]) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

async function post(url: string, route: string, body: unknown): Promise<void> {
  const res = await fetch(`${url}${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${route}: HTTP ${res.status} ${text.slice(0, 300)}`);
}

const PROMPT = Array.from({ length: SHAPE.seq }, (_, i) => (i * 37) % 256);
const complete = (url: string, model: string): Promise<void> =>
  post(url, '/v1/completions', { model, prompt: PROMPT, echo: true, logprobs: 1, max_tokens: 1, temperature: 0 });

interface Part { base: number; peak: number; end: number; seconds: number }

/** Starts a server, reads its base RSS once it has answered on the base model, runs `work`, and reads the high-water mark. */
async function part(modelDir: string, adapters: string, args: string[], work: (url: string) => Promise<void>): Promise<Part> {
  const s = await startServe(modelDir, ['--lora-root', adapters, ...args]);
  try {
    const pid = s.child.pid!;
    await complete(s.url, path.basename(modelDir));
    const base = memoryOf(pid).rss;
    const t0 = performance.now();
    await work(s.url);
    const seconds = (performance.now() - t0) / 1000;
    const { rss, hwm } = memoryOf(pid);
    return { base, peak: hwm, end: rss, seconds };
  } finally {
    await stop(s);
  }
}

function report(prefix: string, p: Part, maxLoras: number, copy: number): Record<string, number | string> {
  const bound = p.base + (maxLoras + 1) * copy;
  return {
    [`${prefix}_base_rss_MiB`]: p.base / MiB,
    [`${prefix}_peak_rss_MiB`]: p.peak / MiB,
    [`${prefix}_end_rss_MiB`]: p.end / MiB,
    [`${prefix}_bound_MiB`]: bound / MiB,
    [`${prefix}_within_bound`]: p.peak <= bound ? 'yes' : 'NO',
    [`${prefix}_seconds`]: p.seconds,
  };
}

export async function benchServeChurn(): Promise<Record<string, number | string>> {
  if (process.platform !== 'linux') throw new Error('bench serve-churn reads /proc/<pid>/status: Linux only');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'genstudy-serve-churn-'));
  try {
    const modelDir = path.join(dir, 'model');
    const adapters = path.join(dir, 'adapters');
    fs.mkdirSync(modelDir);
    writeBenchModel(modelDir, SHAPE);
    const base = await loadModel(modelDir);
    for (const [name, seed] of [['a', 1], ['b', 2]] as const) {
      const lora = LoraAdapters.create(base, { r: 8, alpha: 16, dropout: 0, targetModules: ADAPTED }, seed);
      await lora.save(path.join(adapters, name), modelDir);
      lora.dispose();
    }
    base.dispose();
    await initBackend();

    const churn = await part(modelDir, adapters, ['--max-loras', '2'], async (url) => {
      await post(url, '/v1/load_lora_adapter', { lora_name: 'keep', lora_path: path.join(adapters, 'a') });
      for (let i = 0; i < CYCLES; i++) {
        const name = `churn-${i}`;
        await post(url, '/v1/load_lora_adapter', { lora_name: name, lora_path: path.join(adapters, 'ab'[i % 2]) });
        // The unload may arrive while the request on the adapter is answered, or before it (a 404).
        const answered = Promise.all([complete(url, name).catch((err: Error) => { if (!/HTTP 404/.test(err.message)) throw err; }),
          complete(url, 'keep')]);
        await post(url, '/v1/unload_lora_adapter', { lora_name: name });
        await answered;
      }
    });
    const alternating = await part(modelDir, adapters, ['--mimic', 'vllm', '--max-loras', '1'], async (url) => {
      for (const n of ['a', 'b']) await post(url, '/v1/load_lora_adapter', { lora_name: n, lora_path: path.join(adapters, n) });
      for (let i = 0; i < CYCLES / 2; i++) await Promise.all([complete(url, 'a'), complete(url, 'b')]);
    });
    const weights = fs.statSync(path.join(modelDir, 'model.safetensors')).size;
    const copy = weights * (enginePath().startsWith('native') ? 2 : 1);
    return {
      model_weights_MiB: weights / MiB,
      served_copy_MiB: copy / MiB,
      engine: enginePath(),
      cpus: os.cpus().length,
      load_average_1min_at_end: os.loadavg()[0],
      ...report(`churn_${CYCLES}_load_unload_max_loras_2`, churn, 2, copy),
      ...report(`vllm_${CYCLES}_alternating_max_loras_1`, alternating, 1, copy),
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
