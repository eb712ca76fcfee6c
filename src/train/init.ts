// A randomly initialised model folder (config.json + model.safetensors + the tokenizer files), for
// training from scratch (the synthetic suite's tiny models). The initialisation follows
// transformers' _init_weights: Linear / Conv1D / Embedding weights ~ Normal(0, initializer_range,
// default 0.02), biases 0, LayerNorm / RMSNorm weights 1 and biases 0; GPT-2 additionally scales
// the residual projections (attn.c_proj, mlp.c_proj) to std 0.02 / sqrt(2 n_layer). OPT's
// embed_positions follows Embedding. The parameter names and shapes come from the engine's family
// (family.params), so the folder loads with loadModel and with transformers.
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../errors.ts';
import { pausePoint } from '../pause-point.ts';
import { familyFor, writeSafetensors, modelSizeProblem } from '../engine/index.ts';
import { seededRandom } from '../seeded-random.ts';
import { buildAtomically, isTemporaryName } from '../atomic-write.ts';
import { INIT_SHAPE_DEFAULTS } from './option-table.ts';

/** A GPT-2-style config small enough to train from scratch here; fields as transformers writes them. */
export function tinyGpt2Config(vocabSize: number,
  o: { layers?: number; hidden?: number; heads?: number; positions?: number } = {}): Record<string, unknown> {
  const hidden = o.hidden ?? INIT_SHAPE_DEFAULTS.hidden;
  return {
    architectures: ['GPT2LMHeadModel'], model_type: 'gpt2', vocab_size: vocabSize, n_positions: o.positions ?? 128,
    n_embd: hidden, n_layer: o.layers ?? INIT_SHAPE_DEFAULTS.layers, n_head: o.heads ?? INIT_SHAPE_DEFAULTS.heads, n_inner: null,
    activation_function: 'gelu_new', layer_norm_epsilon: 1e-5, initializer_range: 0.02, tie_word_embeddings: true, scale_attn_weights: true,
    bos_token_id: 1, eos_token_id: 2, resid_pdrop: 0, embd_pdrop: 0, attn_pdrop: 0,
  };
}

/** A Llama-style config of the same scale. */
export function tinyLlamaConfig(vocabSize: number,
  o: { layers?: number; hidden?: number; heads?: number; kvHeads?: number; positions?: number } = {}): Record<string, unknown> {
  const hidden = o.hidden ?? INIT_SHAPE_DEFAULTS.hidden;
  return {
    architectures: ['LlamaForCausalLM'], model_type: 'llama', vocab_size: vocabSize, hidden_size: hidden,
    intermediate_size: hidden * 2, num_hidden_layers: o.layers ?? INIT_SHAPE_DEFAULTS.layers,
    num_attention_heads: o.heads ?? INIT_SHAPE_DEFAULTS.heads,
    num_key_value_heads: o.kvHeads ?? o.heads ?? INIT_SHAPE_DEFAULTS.heads, max_position_embeddings: o.positions ?? 128, rms_norm_eps: 1e-6,
    rope_theta: 10000, hidden_act: 'silu', tie_word_embeddings: false, initializer_range: 0.02,
    bos_token_id: 1, eos_token_id: 2,
  };
}

/** Standard normal draws from a seeded stream (Box-Muller over mulberry32), reproducible everywhere. */
function normals(n: number, std: number, seed: number, name: string): Float32Array {
  const rng = seededRandom(seed, 'init', name);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i += 2) {
    const u1 = 1 - rng.next();
    const u2 = rng.next();
    const r = Math.sqrt(-2 * Math.log(u1));
    out[i] = r * Math.cos(2 * Math.PI * u2) * std;
    if (i + 1 < n) out[i + 1] = r * Math.sin(2 * Math.PI * u2) * std;
  }
  return out;
}

/** The config fields that decide a tiny model's size, as a user set them. */
function describeShape(config: Record<string, unknown>): string {
  const keys = ['model_type', 'vocab_size', 'n_embd', 'hidden_size', 'n_layer', 'num_hidden_layers', 'n_head', 'num_attention_heads',
    'intermediate_size'];
  return keys.filter((k) => config[k] !== undefined).map((k) => `${k} ${JSON.stringify(config[k])}`).join(', ');
}

function isNormWeight(name: string): boolean {
  return /(^|\.)(ln_\d|ln_f|norm|[a-z_]*layer_?norm|[a-z_]*_norm)\.weight$/.test(name);
}

/**
 * Writes a freshly initialised model to `outDir`: the config (model_type selects the family), the
 * weights, and tokenizer.json / tokenizer_config.json copied from `tokenizerDir`. Returns outDir.
 * The same (config, seed) gives the same bytes.
 */
export async function initModel(config: Record<string, unknown>, tokenizerDir: string, seed: number, outDir: string): Promise<string> {
  const configFile = path.join(outDir, 'config.json');
  const family = familyFor(config.model_type, `${configFile} (model_type)`);
  const arch = family.parseConfig(config, configFile);
  const tooBig = modelSizeProblem(family, arch);
  if (tooBig) throw new UserError(`the model to initialise (${describeShape(config)}): ${tooBig}`);
  const std = typeof config.initializer_range === 'number' ? config.initializer_range : 0.02;
  const layers = arch.layers;
  for (const f of ['tokenizer.json']) {
    if (!fs.existsSync(path.join(tokenizerDir, f))) throw new UserError(`${tokenizerDir}: no ${f} to copy into the new model`);
  }
  const tensors = new Map<string, { shape: number[]; data: Float32Array }>();
  for (const spec of family.params(arch)) {
    if (spec.optional) continue;
    const n = spec.shape.reduce((a, b) => a * b, 1);
    let data: Float32Array;
    if (spec.name.endsWith('.bias')) data = new Float32Array(n);
    else if (spec.shape.length === 1 && isNormWeight(spec.name)) data = new Float32Array(n).fill(1);
    else if (spec.shape.length === 1) throw new Error(`internal: no initialisation rule for ${spec.name}`);
    else {
      const residual = arch.modelType === 'gpt2' && /\.(attn|mlp)\.c_proj\.weight$/.test(spec.name);
      data = normals(n, residual ? std / Math.sqrt(2 * layers) : std, seed, spec.name);
    }
    tensors.set(spec.name, { shape: spec.shape, data });
  }
  // The folder is built under a temporary name and renamed into place (src/atomic-write.ts), as
  // checkpoints are: a process killed half-way leaves only a temporary folder, which the next call
  // clears, never an outDir that exists but does not load.
  const parent = path.dirname(path.resolve(outDir));
  const base = path.basename(path.resolve(outDir));
  fs.mkdirSync(parent, { recursive: true });
  for (const name of fs.readdirSync(parent)) {
    if (name.startsWith(`.${base}.`) && isTemporaryName(name)) fs.rmSync(path.join(parent, name), { recursive: true, force: true });
  }
  await buildAtomically(outDir, async (tmp) => {
    fs.mkdirSync(tmp);
    writeSafetensors(path.join(tmp, 'model.safetensors'), tensors, { format: 'pt' });
    pausePoint('init-model:weights-written');
    fs.writeFileSync(path.join(tmp, 'config.json'), JSON.stringify({ ...config, torch_dtype: 'float32' }, null, 2) + '\n');
    for (const f of ['tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json']) {
      const src = path.join(tokenizerDir, f);
      if (fs.existsSync(src)) fs.copyFileSync(src, path.join(tmp, f));
    }
  });
  return outDir;
}
