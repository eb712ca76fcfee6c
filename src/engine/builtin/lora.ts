// LoRA adapters on the built-in engine's linear layers, with PEFT's semantics and file format:
//   y = x W + b + dropout(x) A^T B^T (alpha / r)          (PEFT LoraLayer, use_rslora = False)
// lora_A ~ kaiming_uniform(a = sqrt 5), i.e. U(-1/sqrt(in), 1/sqrt(in)), lora_B = 0, so a fresh
// adapter leaves the model unchanged. Target modules are matched as PEFT matches a list of names:
// a module whose path equals the name or ends with "." + name. Saved as PEFT saves them:
// adapter_config.json and adapter_model.safetensors with tensors
// base_model.model.<module path>.lora_A.weight [r, in] and .lora_B.weight [out, r].
// In memory A is kept as [in, r] and B as [r, out] so the forward uses plain matMuls (blocks.ts).
// The adapters act through the model's TrainingContext while attached. Which modules a family's
// LoRA adapts by default, and which of its weights are Conv1D (fan_in_fan_out), the family says.
import fs from 'node:fs';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { applyDropout } from './simd/dropout-mask-kernel.ts';
import { addScaled } from './simd/add-scaled-kernel.ts';
import { UserError } from '../../errors.ts';
import { seededRandom } from '../../seeded-random.ts';
import { readConfig, readJsonFile } from '../hf/checkpoint.ts';
import { BuiltinModel } from './model.ts';
import { Params, type ParamSpec } from './params.ts';
import { allFamilies, familyFor, knownModelTypes } from './registry.ts';
import { readSafetensors, writeSafetensors } from '../hf/safetensors.ts';
import { writeFileAtomic } from '../../atomic-write.ts';

export interface LoraConfig {
  r: number;
  alpha: number;
  dropout: number;
  /** Module names as in PEFT's target_modules, e.g. q_proj, v_proj, c_attn, out_proj. */
  targetModules: string[];
}

export interface LoraTarget {
  /** The module path, e.g. model.layers.0.self_attn.q_proj. */
  module: string;
  /** The base weight's parameter name (module + ".weight"). */
  weight: string;
  inFeatures: number;
  outFeatures: number;
  /** A Conv1D layer (GPT-2): PEFT adapts it with fan_in_fan_out. */
  conv1d: boolean;
}

/**
 * Weights of the layers blocks.linear applies (adapters act there): the family's nn.Linear and
 * Conv1D weights except the lm head's, which blocks.lmHead applies.
 */
function adaptable(spec: ParamSpec): boolean {
  return (spec.linear === true || spec.conv1d === true) && spec.name !== 'lm_head.weight';
}

/** For model types the built-in engine does not implement (trained by transformers): the names most decoders use. */
const FALLBACK_TARGETS = ['q_proj', 'k_proj', 'v_proj', 'o_proj'];

/**
 * The default target modules in words, for help text: the usual names, then each family's own where
 * they differ ("q_proj,k_proj,v_proj,o_proj; GPT-2: c_attn,c_proj; ...").
 */
export function defaultLoraTargetsInWords(): string {
  const usual = FALLBACK_TARGETS.join(',');
  const own = allFamilies().filter((f) => f.loraTargets.join(',') !== usual).map((f) => `${f.label}: ${f.loraTargets.join(',')}`);
  return [usual, ...own].join('; ');
}

/** The target modules LoRA adapts when none are named: the model family's (Family.loraTargets). */
export function defaultLoraTargetsOf(modelDir: string): string[] {
  const modelType = readConfig(modelDir).model_type;
  if (!knownModelTypes().includes(String(modelType))) return [...FALLBACK_TARGETS];
  return [...familyFor(modelType, path.join(modelDir, 'config.json')).loraTargets];
}

/** The linear layers of a model that the target names select, in parameter order. */
export function loraTargets(model: BuiltinModel, targetModules: readonly string[]): LoraTarget[] {
  if (targetModules.length === 0) throw new UserError('LoRA: target modules are empty; name at least one (e.g. q_proj,v_proj)');
  const out: LoraTarget[] = [];
  const matched = new Set<string>();
  for (const spec of model.family.params(model.arch)) {
    if (!adaptable(spec)) continue;
    const module = spec.name.slice(0, -'.weight'.length);
    const hit = targetModules.find((t) => module === t || module.endsWith(`.${t}`));
    if (!hit) continue;
    matched.add(hit);
    const t = model.params.maybe(spec.name);
    if (!t) continue;
    // Memory layout is [in, out] for every linear weight (nn.Linear transposed on load, Conv1D as stored).
    out.push({ module, weight: spec.name, inFeatures: t.shape[0] as number, outFeatures: t.shape[1] as number, conv1d: spec.conv1d === true });
  }
  const missing = targetModules.filter((t) => !matched.has(t));
  if (missing.length > 0) {
    const names = [...new Set(model.family.params(model.arch).filter(adaptable).map((s) => s.name.slice(0, -'.weight'.length).split('.').pop()!))];
    throw new UserError(`LoRA: target module(s) ${missing.map((m) => JSON.stringify(m)).join(', ')} match no linear layer ` +
      `of this ${model.arch.modelType} model; its linear layers are ${names.join(', ')}`);
  }
  return out;
}

export interface LoraPair { target: LoraTarget; a: tf.Variable; b: tf.Variable }

export class LoraAdapters {
  readonly scale: number;
  private attached = false;
  /** Counts adapter calls so every dropout mask gets its own seed. */
  private calls = 0;
  private dropoutSeed: number | undefined;

  private constructor(readonly model: BuiltinModel, readonly config: LoraConfig, readonly pairs: LoraPair[]) {
    this.scale = config.alpha / config.r;
  }

  /** Fresh adapters (A uniform as PEFT's kaiming init, B zero), reproducible from the seed. */
  static create(model: BuiltinModel, config: LoraConfig, seed: number): LoraAdapters {
    validateLoraConfig(config);
    const pairs = loraTargets(model, config.targetModules).map((target) => {
      const bound = 1 / Math.sqrt(target.inFeatures);
      const rng = seededRandom(seed, 'lora_A', target.module);
      const a = new Float32Array(target.inFeatures * config.r);
      for (let i = 0; i < a.length; i++) a[i] = (2 * rng.next() - 1) * bound;
      return { target, a: variableOf(tf.tensor2d(a, [target.inFeatures, config.r])), b: variableOf(tf.zeros([config.r, target.outFeatures])) };
    });
    return new LoraAdapters(model, config, pairs);
  }

  /** Adapters read from a PEFT folder (adapter_config.json + adapter_model.safetensors). */
  static load(model: BuiltinModel, dir: string): LoraAdapters {
    const config = readAdapterConfig(dir);
    const targets = config.targetModules;
    const file = path.join(dir, 'adapter_model.safetensors');
    const raw = readSafetensors(file).tensors;
    const pairs = loraTargets(model, targets).map((target) => {
      const get = (which: 'lora_A' | 'lora_B', shape: number[]) => {
        const name = `base_model.model.${target.module}.${which}.weight`;
        const t = raw.get(name);
        if (!t) throw new UserError(`${file}: missing tensor "${name}"`);
        if (t.shape.join() !== shape.join()) {
          throw new UserError(`${file}: tensor "${name}" has shape ${JSON.stringify(t.shape)}; expected ${JSON.stringify(shape)}`);
        }
        return tf.tidy(() => tf.transpose(tf.tensor2d(t.data, shape as [number, number])));
      };
      return { target, a: variableOf(get('lora_A', [config.r, target.inFeatures])), b: variableOf(get('lora_B', [target.outFeatures, config.r])) };
    });
    return new LoraAdapters(model, config, pairs);
  }

  variables(): tf.Variable[] {
    return this.pairs.flatMap((p) => [p.a, p.b]);
  }

  /** Trainable tensors by the names PEFT writes (without the adapter name). */
  namedVariables(): Map<string, tf.Variable> {
    const out = new Map<string, tf.Variable>();
    for (const p of this.pairs) {
      out.set(`base_model.model.${p.target.module}.lora_A.weight`, p.a);
      out.set(`base_model.model.${p.target.module}.lora_B.weight`, p.b);
    }
    return out;
  }

  /**
   * Makes the model's forward use the adapters. With `dropoutSeed` set (training) LoRA dropout is
   * applied, one mask per adapter call, seeded from (dropoutSeed, call number); without it
   * (evaluation) no dropout.
   */
  attach(dropoutSeed?: number): void {
    this.dropoutSeed = dropoutSeed;
    this.calls = 0;
    if (this.attached) return;
    for (const p of this.pairs) {
      const w = this.model.params.get(p.target.weight);
      this.model.training.attachAdapter(w, (x2, y) => {
        let xin: tf.Tensor2D = x2;
        const rate = this.config.dropout;
        if (this.dropoutSeed !== undefined && rate > 0) {
          const seed = seededRandom(this.dropoutSeed, 'lora-dropout', this.calls++).int(2 ** 31);
          xin = applyDropout(x2, rate, seed) as tf.Tensor2D;
        }
        return addScaled(y, tf.matMul(tf.matMul(xin, p.a as tf.Tensor2D), p.b as tf.Tensor2D), this.scale) as tf.Tensor2D;
      });
    }
    this.attached = true;
  }

  detach(): void {
    for (const p of this.pairs) this.model.training.detachAdapter(this.model.params.get(p.target.weight));
    this.attached = false;
  }

  /** Writes adapter_config.json and adapter_model.safetensors as PEFT's save_pretrained does. */
  async save(dir: string, baseModel: string): Promise<void> {
    fs.mkdirSync(dir, { recursive: true });
    const tensors = new Map<string, { shape: number[]; data: Float32Array }>();
    for (const [name, v] of this.namedVariables()) {
      const fileLayout = tf.transpose(v);
      tensors.set(name, { shape: fileLayout.shape, data: ((await fileLayout.data()) as Float32Array).slice() });
      fileLayout.dispose();
    }
    writeSafetensors(path.join(dir, 'adapter_model.safetensors'), tensors, { format: 'pt' });
    const config = {
      alpha_pattern: {}, auto_mapping: null, base_model_name_or_path: baseModel, bias: 'none',
      // PEFT turns fan_in_fan_out on when it adapts a Conv1D layer, and saves it so (peft 0.21 lora/layer.py, dispatch_default).
      fan_in_fan_out: this.pairs.some((p) => p.target.conv1d), inference_mode: true, init_lora_weights: true,
      layers_pattern: null, layers_to_transform: null, lora_alpha: this.config.alpha, lora_dropout: this.config.dropout,
      modules_to_save: null, peft_type: 'LORA', r: this.config.r, rank_pattern: {}, revision: null,
      target_modules: [...this.config.targetModules].sort(), task_type: 'CAUSAL_LM', use_dora: false, use_rslora: false,
    };
    writeFileAtomic(path.join(dir, 'adapter_config.json'), JSON.stringify(config, null, 2) + '\n');
  }

  /** A new model whose weights are base + A B (alpha / r) for every adapted layer (PEFT's merge_and_unload). */
  merged(): BuiltinModel {
    const tensors = new Map<string, tf.Tensor>();
    const byWeight = new Map(this.pairs.map((p) => [p.target.weight, p]));
    for (const [name, t] of this.model.params.tensors) {
      const p = byWeight.get(name);
      tensors.set(name, p ? tf.tidy(() => tf.add(t, tf.mul(tf.matMul(p.a as tf.Tensor2D, p.b as tf.Tensor2D), this.scale))) : tf.clone(t));
    }
    const m = this.model;
    return new BuiltinModel(`${m.id}+lora`, m.dir, m.family, m.arch, new Params(tensors), m.tokenizer, m.config);
  }

  dispose(): void {
    this.detach();
    for (const v of this.variables()) v.dispose();
  }
}

/** A PEFT folder's adapter_config.json, checked (LoRA only, no rsLoRA / DoRA). */
export function readAdapterConfig(dir: string): LoraConfig {
  const configFile = path.join(dir, 'adapter_config.json');
  const cfg = readJsonFile(configFile);
  if (cfg.peft_type !== 'LORA') throw new UserError(`${configFile}: peft_type is ${JSON.stringify(cfg.peft_type)}; expected "LORA"`);
  const targets = Array.isArray(cfg.target_modules) ? cfg.target_modules.map(String)
    : typeof cfg.target_modules === 'string' ? [cfg.target_modules] : [];
  const config: LoraConfig = { r: Number(cfg.r), alpha: Number(cfg.lora_alpha), dropout: Number(cfg.lora_dropout ?? 0), targetModules: targets };
  if (cfg.use_rslora === true || cfg.use_dora === true) throw new UserError(`${configFile}: use_rslora / use_dora are not supported`);
  validateLoraConfig(config, configFile);
  return config;
}

/** A trainable variable holding `t`'s values; `t` is disposed. */
function variableOf(t: tf.Tensor): tf.Variable {
  const v = tf.variable(t, true);
  t.dispose();
  return v;
}

export function validateLoraConfig(c: LoraConfig, where = 'LoRA'): void {
  if (!Number.isInteger(c.r) || c.r < 1) throw new UserError(`${where}: r must be a whole number >= 1, got ${c.r}`);
  if (!Number.isFinite(c.alpha) || c.alpha <= 0) throw new UserError(`${where}: alpha (lora_alpha) must be a positive number, got ${c.alpha}`);
  if (!Number.isFinite(c.dropout) || c.dropout < 0 || c.dropout >= 1) throw new UserError(`${where}: dropout must be in [0, 1), got ${c.dropout}`);
}
