// The model shapes the engine and training benches run at, as data: the project's bench model and
// two real shapes of the papers' families with random weights (SmolLM-135M's Llama shape and GPT-2
// small's). Each is written once as a Hugging Face folder (config.json, model.safetensors in float32,
// a byte-level tokenizer.json) that genstudy and the PyTorch references both read, so the sides run
// the same weights on the same token ids. GENSTUDY_BENCH_SHAPES picks them (a comma list; default
// "bench", the fast one).
import fs from 'node:fs';
import path from 'node:path';
import { writeSafetensors } from '../src/engine/hf/safetensors.ts';

export interface BenchShape {
  family: 'gpt2' | 'llama';
  layers: number; width: number; heads: number; kvHeads: number; inner: number; vocab: number;
  /** Scoring: sequences of `seq` tokens, the last `cont` of them the continuation, `n` of them. */
  seq: number; cont: number; n: number;
}

export const SHAPES: Record<string, BenchShape> = {
  // GPT-2 style, 6 x 256, vocabulary 8192: the shape every earlier measurement used.
  bench: { family: 'gpt2', layers: 6, width: 256, heads: 4, kvHeads: 4, inner: 1024, vocab: 8192, seq: 128, cont: 64, n: 64 },
  // HuggingFaceTB/SmolLM-135M's config.json: 30 layers, width 576, 9 query / 3 key-value heads,
  // SwiGLU 1536, RMSNorm 1e-5, rope_theta 10000, vocabulary 49152, tied head.
  'smollm-135m': { family: 'llama', layers: 30, width: 576, heads: 9, kvHeads: 3, inner: 1536, vocab: 49152, seq: 256, cont: 64, n: 36 },
  // openai-community/gpt2's config.json: 12 x 768, 12 heads, vocabulary 50257, tied head.
  'gpt2-small': { family: 'gpt2', layers: 12, width: 768, heads: 12, kvHeads: 12, inner: 3072, vocab: 50257, seq: 256, cont: 64, n: 36 },
};

/** The shapes named in GENSTUDY_BENCH_SHAPES (default: bench); an unknown name lists the known. */
export function benchShapes(): [string, BenchShape][] {
  const names = (process.env.GENSTUDY_BENCH_SHAPES ?? 'bench').split(',').map((s) => s.trim()).filter(Boolean);
  return names.map((n) => {
    const s = SHAPES[n];
    if (!s) throw new Error(`unknown bench shape "${n}" in GENSTUDY_BENCH_SHAPES; known: ${Object.keys(SHAPES).join(', ')}`);
    return [n, s];
  });
}

/** Deterministic normal numbers (mulberry32 + Box-Muller). */
export function normals(seed: number): () => number {
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

type Tensors = Map<string, { shape: number[]; data: Float32Array }>;

function gpt2Tensors(s: BenchShape, add: (name: string, shape: number[], std: number, mean?: number) => void): void {
  const h = s.width, p = 'transformer.';
  add(`${p}wte.weight`, [s.vocab, h], 0.02);
  add(`${p}wpe.weight`, [s.seq, h], 0.01);
  add(`${p}ln_f.weight`, [h], 0.05, 1);
  add(`${p}ln_f.bias`, [h], 0.05);
  for (let i = 0; i < s.layers; i++) {
    const l = `${p}h.${i}.`;
    add(`${l}ln_1.weight`, [h], 0.05, 1); add(`${l}ln_1.bias`, [h], 0.05);
    add(`${l}attn.c_attn.weight`, [h, 3 * h], 0.02); add(`${l}attn.c_attn.bias`, [3 * h], 0.01);
    add(`${l}attn.c_proj.weight`, [h, h], 0.02); add(`${l}attn.c_proj.bias`, [h], 0.01);
    add(`${l}ln_2.weight`, [h], 0.05, 1); add(`${l}ln_2.bias`, [h], 0.05);
    add(`${l}mlp.c_fc.weight`, [h, s.inner], 0.02); add(`${l}mlp.c_fc.bias`, [s.inner], 0.01);
    add(`${l}mlp.c_proj.weight`, [s.inner, h], 0.02); add(`${l}mlp.c_proj.bias`, [h], 0.01);
  }
}

function llamaTensors(s: BenchShape, add: (name: string, shape: number[], std: number, mean?: number) => void): void {
  const h = s.width, hd = s.width / s.heads, kw = s.kvHeads * hd;
  add('model.embed_tokens.weight', [s.vocab, h], 0.02);
  add('model.norm.weight', [h], 0.05, 1);
  for (let i = 0; i < s.layers; i++) {
    const l = `model.layers.${i}.`;
    add(`${l}input_layernorm.weight`, [h], 0.05, 1);
    add(`${l}self_attn.q_proj.weight`, [h, h], 0.02);
    add(`${l}self_attn.k_proj.weight`, [kw, h], 0.02);
    add(`${l}self_attn.v_proj.weight`, [kw, h], 0.02);
    add(`${l}self_attn.o_proj.weight`, [h, h], 0.02);
    add(`${l}post_attention_layernorm.weight`, [h], 0.05, 1);
    add(`${l}mlp.gate_proj.weight`, [s.inner, h], 0.02);
    add(`${l}mlp.up_proj.weight`, [s.inner, h], 0.02);
    add(`${l}mlp.down_proj.weight`, [h, s.inner], 0.02);
  }
}

function config(s: BenchShape): Record<string, unknown> {
  if (s.family === 'gpt2') {
    return {
      architectures: ['GPT2LMHeadModel'], model_type: 'gpt2', vocab_size: s.vocab, n_positions: s.seq, n_embd: s.width,
      n_layer: s.layers, n_head: s.heads, n_inner: s.inner, activation_function: 'gelu_new', layer_norm_epsilon: 1e-5,
      tie_word_embeddings: true, bos_token_id: 0, eos_token_id: 0,
    };
  }
  return {
    architectures: ['LlamaForCausalLM'], model_type: 'llama', vocab_size: s.vocab, hidden_size: s.width, intermediate_size: s.inner,
    num_hidden_layers: s.layers, num_attention_heads: s.heads, num_key_value_heads: s.kvHeads, hidden_act: 'silu',
    max_position_embeddings: 2048, rms_norm_eps: 1e-5, rope_theta: 10000, tie_word_embeddings: true, attention_bias: false,
    mlp_bias: false, bos_token_id: 0, eos_token_id: 0, torch_dtype: 'float32',
  };
}

/** Writes the shape's folder: config.json, model.safetensors (random weights, seed 7), tokenizer files. */
export function writeBenchModel(dir: string, s: BenchShape = SHAPES.bench): void {
  const rand = normals(7);
  const tensors: Tensors = new Map();
  const add = (name: string, shape: number[], std: number, mean = 0) => {
    const data = new Float32Array(shape.reduce((a, b) => a * b, 1));
    for (let i = 0; i < data.length; i++) data[i] = mean + std * rand();
    tensors.set(name, { shape, data });
  };
  (s.family === 'gpt2' ? gpt2Tensors : llamaTensors)(s, add);
  writeSafetensors(path.join(dir, 'model.safetensors'), tensors);
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config(s)));
  fs.writeFileSync(path.join(dir, 'tokenizer.json'), JSON.stringify({
    version: '1.0', added_tokens: [], normalizer: null,
    pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
    post_processor: null, decoder: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
    model: {
      type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: null, end_of_word_suffix: null,
      fuse_unk: false, byte_fallback: false, vocab: byteLevelVocab(), merges: [],
    },
  }));
  fs.writeFileSync(path.join(dir, 'tokenizer_config.json'), JSON.stringify({ tokenizer_class: 'PreTrainedTokenizerFast' }));
}

/** The scored token ids: `n` sequences of `seq` random ids below the vocabulary size. */
export function benchSequences(s: BenchShape = SHAPES.bench): number[][] {
  const rand = normals(11);
  return Array.from({ length: s.n }, () => Array.from({ length: s.seq }, () => Math.floor(Math.abs(rand() * 1e6)) % s.vocab));
}
