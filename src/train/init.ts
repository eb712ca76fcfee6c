// A randomly initialised model folder (config.json + model.safetensors + the tokenizer files), for
// training from scratch (the synthetic suite's tiny models). The initialisation follows
// transformers' _init_weights: Linear / Conv1D / Embedding weights ~ Normal(0, initializer_range,
// default 0.02), biases 0, LayerNorm / RMSNorm weights 1 and biases 0, and the residual projections
// a family marks (GPT-2's attn.c_proj and mlp.c_proj) at std 0.02 / sqrt(2 n_layer). The parameter
// names, shapes, norms and residual projections come from the engine's family (family.params), so
// the folder loads with loadModel and with transformers; a tiny config is the family's too
// (Family.scratchConfig).
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../errors.ts';
import { pausePoint } from '../pause-point.ts';
import { familyFor, writeSafetensors, modelSizeProblem, scratchFamily, type InitFamily } from '../engine/index.ts';
import { seededRandom } from '../seeded-random.ts';
import { buildAtomically, isTemporaryName } from '../atomic-write.ts';
import { INIT_SHAPE_DEFAULTS } from './option-table.ts';

/** A tiny model's shape as a caller gives it: INIT_SHAPE_DEFAULTS where a field is left out. */
export interface TinyShape { layers?: number; hidden?: number; heads?: number; kvHeads?: number; positions?: number; dropout?: number }

/** Positions a tiny model takes unless told. */
const TINY_POSITIONS = 128;

/**
 * A config small enough to train from scratch here, in one of the families that offer one
 * (INIT_FAMILIES); fields as transformers writes them. Key-value heads default to the heads, and the
 * model's dropout to none.
 */
export function tinyConfig(family: InitFamily, vocabSize: number, o: TinyShape = {}): Record<string, unknown> {
  const heads = o.heads ?? INIT_SHAPE_DEFAULTS.heads;
  return scratchFamily(family).scratchConfig(vocabSize, {
    layers: o.layers ?? INIT_SHAPE_DEFAULTS.layers, hidden: o.hidden ?? INIT_SHAPE_DEFAULTS.hidden, heads, kvHeads: o.kvHeads ?? heads,
    positions: o.positions ?? TINY_POSITIONS, dropout: o.dropout,
  });
}

/** tinyConfig of GPT-2, under the library's earlier name. */
export function tinyGpt2Config(vocabSize: number, o: Omit<TinyShape, 'kvHeads'> = {}): Record<string, unknown> {
  return tinyConfig('gpt2', vocabSize, o);
}

/** tinyConfig of Llama, under the library's earlier name. */
export function tinyLlamaConfig(vocabSize: number, o: TinyShape = {}): Record<string, unknown> {
  return tinyConfig('llama', vocabSize, o);
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

/** The config fields that decide a tiny model's size (the family's), as a user set them. */
function describeShape(config: Record<string, unknown>, sizeFields: readonly string[]): string {
  const keys = ['model_type', 'vocab_size', ...sizeFields];
  return keys.filter((k) => config[k] !== undefined).map((k) => `${k} ${JSON.stringify(config[k])}`).join(', ');
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
  if (tooBig) throw new UserError(`the model to initialise (${describeShape(config, family.sizeFields)}): ${tooBig}`);
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
    else if (spec.shape.length === 1 && spec.norm) data = new Float32Array(n).fill(1);
    else if (spec.shape.length === 1) throw new Error(`internal: no initialisation rule for ${spec.name}`);
    else data = normals(n, spec.residual ? std / Math.sqrt(2 * layers) : std, seed, spec.name);
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
