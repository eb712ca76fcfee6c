// Llama (transformers' modeling_llama.py) and the decoders built like it: RMSNorm, rotary positions,
// grouped-query attention, SwiGLU MLP. Qwen2 (q/k/v biases) and OLMo2 (post-norms, q/k norms) are
// the same code with options; see qwen2.ts and olmo2.ts.
import * as tf from '@tensorflow/tfjs-core';
import { UserError } from '../../../errors.ts';
import {
  activation, lmHead, applyRotary, attendsByLengths, attention, gated, afterAttention, linear, residualLinear, rmsNorm, layerScope, splitHeads,
} from '../blocks.ts';
import { fusedOpsApply, fusedOpsAvailable, nativeGroupQueryAttention, nativeRopeAttention } from '../native/fused-ops.ts';
import { nativeRopeAttentionTrainable } from '../native/training-ops.ts';
import type { ParamSpec } from '../params.ts';
import { parseRope, rotaryCache, rotaryTables, type RopeConfig } from '../rotary.ts';
import { bool, num, str, type Arch, type LayerCache, type Family, type ScratchFamily, type StepInputs, type StepOutputs } from './family.ts';

export interface LlamaLikeOptions {
  modelTypes: string[];
  /** The family's name in help text. */
  label: string;
  /** transformers config class defaults that differ between the families. */
  defaults: { eps: number; maxPositions: number; qkvBias: boolean };
  /** OLMo2: RMSNorm on the attention and MLP outputs instead of on their inputs, and on q/k. */
  olmo2?: boolean;
}

export interface LlamaArch extends Arch {
  hidden: number; inner: number; heads: number; kvHeads: number; headDim: number; eps: number; act: string;
  qkvBias: boolean; oBias: boolean; mlpBias: boolean; tie: boolean; rope: RopeConfig; olmo2: boolean;
}

export function llamaLike(o: LlamaLikeOptions): Family<LlamaArch> {
  return {
    modelTypes: o.modelTypes,
    label: o.label,
    loraTargets: ['q_proj', 'k_proj', 'v_proj', 'o_proj'],
    sizeFields: ['hidden_size', 'num_hidden_layers', 'num_attention_heads', 'intermediate_size'],

    parseConfig(cfg, file) {
      const hidden = num(cfg, 'hidden_size', file);
      const heads = num(cfg, 'num_attention_heads', file);
      const kvHeads = num(cfg, 'num_key_value_heads', file, heads);
      if (heads % kvHeads !== 0) throw new UserError(`${file}: num_attention_heads ${heads} is not a multiple of num_key_value_heads ${kvHeads}`);
      const headDim = num(cfg, 'head_dim', file, hidden / heads);
      if (!Number.isInteger(headDim) || headDim % 2 !== 0) throw new UserError(`${file}: head_dim ${headDim} must be an even integer`);
      const act = str(cfg, 'hidden_act', file, 'silu');
      if (!activation(act)) throw new UserError(`${file}: hidden_act "${act}" is not supported`);
      const attentionBias = bool(cfg, 'attention_bias', file, false);
      const partial = num(cfg, 'partial_rotary_factor', file, 1);
      if (partial !== 1) throw new UserError(`${file}: partial_rotary_factor ${partial} is not supported (expected 1)`);
      return {
        modelType: String(cfg.model_type), vocabSize: num(cfg, 'vocab_size', file), layers: num(cfg, 'num_hidden_layers', file),
        maxPositions: num(cfg, 'max_position_embeddings', file, o.defaults.maxPositions), outputWidth: hidden,
        hidden, inner: num(cfg, 'intermediate_size', file), heads, kvHeads, headDim,
        eps: num(cfg, 'rms_norm_eps', file, o.defaults.eps), act,
        // Qwen2 always has q/k/v biases and never an o bias; Llama and OLMo2 follow attention_bias.
        qkvBias: o.defaults.qkvBias || attentionBias, oBias: !o.defaults.qkvBias && attentionBias,
        mlpBias: bool(cfg, 'mlp_bias', file, false), tie: bool(cfg, 'tie_word_embeddings', file, false),
        rope: parseRope(cfg, headDim, file), olmo2: o.olmo2 ?? false,
        dropout: { attn: num(cfg, 'attention_dropout', file, 0) },
      };
    },

    params(a) {
      const h = a.hidden, qw = a.heads * a.headDim, kw = a.kvHeads * a.headDim;
      const specs: ParamSpec[] = [
        { name: 'model.embed_tokens.weight', shape: [a.vocabSize, h] },
        { name: 'model.norm.weight', shape: [h], norm: true },
      ];
      if (!a.tie) specs.push({ name: 'lm_head.weight', shape: [a.vocabSize, h], linear: true });
      for (let i = 0; i < a.layers; i++) {
        const l = `model.layers.${i}.`;
        const lin = (name: string, out: number, inp: number, bias: boolean) => {
          specs.push({ name: `${l}${name}.weight`, shape: [out, inp], linear: true });
          if (bias) specs.push({ name: `${l}${name}.bias`, shape: [out] });
        };
        lin('self_attn.q_proj', qw, h, a.qkvBias);
        lin('self_attn.k_proj', kw, h, a.qkvBias);
        lin('self_attn.v_proj', kw, h, a.qkvBias);
        lin('self_attn.o_proj', h, qw, a.oBias);
        lin('mlp.gate_proj', a.inner, h, a.mlpBias);
        lin('mlp.up_proj', a.inner, h, a.mlpBias);
        lin('mlp.down_proj', h, a.inner, a.mlpBias);
        specs.push({ name: `${l}post_attention_layernorm.weight`, shape: [h], norm: true });
        if (a.olmo2) {
          specs.push({ name: `${l}post_feedforward_layernorm.weight`, shape: [h], norm: true },
            { name: `${l}self_attn.q_norm.weight`, shape: [qw], norm: true }, { name: `${l}self_attn.k_norm.weight`, shape: [kw], norm: true });
        } else {
          specs.push({ name: `${l}input_layernorm.weight`, shape: [h], norm: true });
        }
      }
      return specs;
    },

    forward(a, p, x: StepInputs): StepOutputs {
      const act = activation(a.act)!;
      // Without a cache, and without attention dropout in training: the native attention ops.
      const t = x.training;
      const fused = fusedOpsAvailable() && !x.past && !t?.drops(a.dropout?.attn);
      const training = fused && !fusedOpsApply();
      // Right-padded rows from position 0 (scoring): onnxruntime's grouped-query attention kernel,
      // which rotates whole heads.
      const byLength = attendsByLengths(x, a.headDim, a.dropout?.attn) && a.rope.dim === a.headDim;
      const { cos, sin } = byLength ? rotaryCache(a.rope, x.ids.shape[1]) : rotaryTables(a.rope, x.positions);
      let h = tf.gather(p.get('model.embed_tokens.weight'), x.ids) as tf.Tensor3D;
      const cache: LayerCache[] = [];
      const lin = (l: string, name: string, v: tf.Tensor) => linear(v, p.get(`${l}${name}.weight`), p.maybe(`${l}${name}.bias`), t);
      for (let i = 0; i < a.layers; i++) {
        const r = layerScope(h, (h) => {
          const l = `model.layers.${i}.`;
          const attnIn = a.olmo2 ? h : rmsNorm(h, p.get(`${l}input_layernorm.weight`), a.eps);
          let q = lin(l, 'self_attn.q_proj', attnIn);
          let k = lin(l, 'self_attn.k_proj', attnIn);
          const v = lin(l, 'self_attn.v_proj', attnIn);
          if (a.olmo2) {
            q = rmsNorm(q, p.get(`${l}self_attn.q_norm.weight`), a.eps);
            k = rmsNorm(k, p.get(`${l}self_attn.k_norm.weight`), a.eps);
          }
          const scale = 1 / Math.sqrt(a.headDim);
          // Inference without a cache: heads, rotary and grouped-query attention in one native call.
          const native = byLength ? nativeGroupQueryAttention(q, k, v, x.lengths!, cos, sin, a.heads, a.kvHeads, a.headDim, scale)
            : training ? nativeRopeAttentionTrainable(q, k, v, cos, sin, x.mask, a.heads, a.kvHeads, a.headDim, scale)
              : fused ? nativeRopeAttention(q, k, v, cos, sin, x.mask, a.heads, a.kvHeads, a.headDim, scale) : undefined;
          const att = native ? { out: native.out, cache: { k: native.k, v: native.v } }
            : attention(
              applyRotary(splitHeads(q, a.heads, a.headDim), cos, sin),
              applyRotary(splitHeads(k, a.kvHeads, a.headDim), cos, sin),
              splitHeads(v, a.kvHeads, a.headDim), x.mask, scale, x.past?.[i], a.dropout?.attn, t);
          // From here on row by row: where only some final rows are read, only those.
          const after = afterAttention(x.at, i, a.layers, h, att.out);
          h = after.h;
          const oW = p.get(`${l}self_attn.o_proj.weight`), oB = p.maybe(`${l}self_attn.o_proj.bias`);
          if (a.olmo2) h = tf.add(h, rmsNorm(linear(after.att, oW, oB, t), p.get(`${l}post_attention_layernorm.weight`), a.eps)) as tf.Tensor3D;
          else h = residualLinear(h, after.att, oW, oB, undefined, t) as tf.Tensor3D;
          const mlpIn = a.olmo2 ? h : rmsNorm(h, p.get(`${l}post_attention_layernorm.weight`), a.eps);
          const inner = gated(act, lin(l, 'mlp.gate_proj', mlpIn), lin(l, 'mlp.up_proj', mlpIn));
          const dW = p.get(`${l}mlp.down_proj.weight`), dB = p.maybe(`${l}mlp.down_proj.bias`);
          if (a.olmo2) h = tf.add(h, rmsNorm(linear(inner, dW, dB, t), p.get(`${l}post_feedforward_layernorm.weight`), a.eps)) as tf.Tensor3D;
          else h = residualLinear(h, inner, dW, dB, undefined, t) as tf.Tensor3D;
          return { h, cache: att.cache };
        });
        h = r.h;
        cache.push(r.cache);
      }
      return { hidden: rmsNorm(h, p.get('model.norm.weight'), a.eps) as tf.Tensor3D, cache };
    },

    logits(_a, p, hidden) {
      return lmHead(p, hidden, 'model.embed_tokens.weight');
    },
  };
}

export const llama: ScratchFamily<LlamaArch> = {
  ...llamaLike({ modelTypes: ['llama'], label: 'Llama', defaults: { eps: 1e-6, maxPositions: 2048, qkvBias: false } }),

  scratchConfig: (vocabSize, s) => ({
    architectures: ['LlamaForCausalLM'], model_type: 'llama', vocab_size: vocabSize, hidden_size: s.hidden,
    intermediate_size: s.hidden * 2, num_hidden_layers: s.layers, num_attention_heads: s.heads,
    num_key_value_heads: s.kvHeads, max_position_embeddings: s.positions, rms_norm_eps: 1e-6,
    rope_theta: 10000, hidden_act: 'silu', tie_word_embeddings: false, initializer_range: 0.02,
    bos_token_id: 1, eos_token_id: 2,
    ...(s.dropout !== undefined ? { attention_dropout: s.dropout } : {}),
  }),
};
