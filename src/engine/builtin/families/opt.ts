// OPT (transformers' modeling_opt.py): learned positions with an offset of 2, LayerNorm before
// (do_layer_norm_before, most sizes) or after (opt-350m) each block, ReLU MLP, q scaled after its
// projection, optional project_in/project_out when word_embed_proj_dim differs from hidden_size,
// lm_head tied to the token embedding. nn.LayerNorm's eps (1e-5) is not configurable in OPT.
import * as tf from '@tensorflow/tfjs-core';
import { UserError } from '../../../errors.ts';
import {
  activation, lmHead, attendsByLengths, causalSelfAttention, dropout, afterAttention, layerNorm, linear, layerScope,
} from '../blocks.ts';
import type { ParamSpec } from '../params.ts';
import { bool, num, str, type Arch, type LayerCache, type Family, type StepInputs, type StepOutputs } from './family.ts';

export interface OptArch extends Arch {
  hidden: number; heads: number; ffn: number; proj: number; act: string; bias: boolean; affine: boolean;
  normBefore: boolean; finalNorm: boolean; tie: boolean;
}

const P = 'model.decoder.';
const OFFSET = 2;
const EPS = 1e-5;

export const opt: Family<OptArch> = {
  modelTypes: ['opt'],
  label: 'OPT',
  // The attention projections; OPT names its output projection out_proj.
  loraTargets: ['q_proj', 'k_proj', 'v_proj', 'out_proj'],
  sizeFields: ['hidden_size', 'num_hidden_layers', 'num_attention_heads'],
  // modeling_opt.py: position ids = cumsum(attention_mask) * attention_mask - 1, so padding gets -1
  // (embedding row 1 once the offset of 2 is added).
  padPosition: () => -1,

  parseConfig(cfg, file) {
    const hidden = num(cfg, 'hidden_size', file, 768);
    const heads = num(cfg, 'num_attention_heads', file, 12);
    if (hidden % heads !== 0) throw new UserError(`${file}: hidden_size ${hidden} is not divisible by num_attention_heads ${heads}`);
    const act = str(cfg, 'activation_function', file, 'relu');
    if (!activation(act)) throw new UserError(`${file}: activation_function "${act}" is not supported`);
    const normBefore = bool(cfg, 'do_layer_norm_before', file, true);
    const proj = num(cfg, 'word_embed_proj_dim', file, hidden);
    return {
      modelType: 'opt', vocabSize: num(cfg, 'vocab_size', file, 50272), layers: num(cfg, 'num_hidden_layers', file, 12),
      maxPositions: num(cfg, 'max_position_embeddings', file, 2048), outputWidth: proj,
      hidden, heads, ffn: num(cfg, 'ffn_dim', file, 3072), proj, act,
      bias: bool(cfg, 'enable_bias', file, true), affine: bool(cfg, 'layer_norm_elementwise_affine', file, true),
      normBefore, finalNorm: normBefore && !bool(cfg, '_remove_final_layer_norm', file, false),
      tie: bool(cfg, 'tie_word_embeddings', file, true),
      dropout: { embd: num(cfg, 'dropout', file, 0.1), attn: num(cfg, 'attention_dropout', file, 0), resid: num(cfg, 'dropout', file, 0.1) },
    };
  },

  params(a) {
    const h = a.hidden;
    const specs: ParamSpec[] = [
      { name: `${P}embed_tokens.weight`, shape: [a.vocabSize, a.proj] },
      { name: `${P}embed_positions.weight`, shape: [a.maxPositions + OFFSET, h] },
    ];
    const norm = (name: string) => {
      if (a.affine) specs.push({ name: `${name}.weight`, shape: [h], norm: true }, { name: `${name}.bias`, shape: [h] });
    };
    const lin = (name: string, out: number, inp: number, bias: boolean) => {
      specs.push({ name: `${name}.weight`, shape: [out, inp], linear: true });
      if (bias) specs.push({ name: `${name}.bias`, shape: [out] });
    };
    if (a.proj !== h) {
      lin(`${P}project_in`, h, a.proj, false);
      lin(`${P}project_out`, a.proj, h, false);
    }
    if (a.finalNorm) norm(`${P}final_layer_norm`);
    if (!a.tie) lin('lm_head', a.vocabSize, a.proj, false);
    for (let i = 0; i < a.layers; i++) {
      const l = `${P}layers.${i}.`;
      for (const n of ['q_proj', 'k_proj', 'v_proj', 'out_proj']) lin(`${l}self_attn.${n}`, h, h, a.bias);
      lin(`${l}fc1`, a.ffn, h, a.bias);
      lin(`${l}fc2`, h, a.ffn, a.bias);
      norm(`${l}self_attn_layer_norm`);
      norm(`${l}final_layer_norm`);
    }
    return specs;
  },

  forward(a, p, x: StepInputs): StepOutputs {
    const act = activation(a.act)!;
    const headDim = a.hidden / a.heads;
    const t = x.training;
    const lin = (name: string, v: tf.Tensor) => linear(v, p.get(`${name}.weight`), p.maybe(`${name}.bias`), t);
    const norm = (name: string, v: tf.Tensor) => layerNorm(v, p.maybe(`${name}.weight`), p.maybe(`${name}.bias`), EPS);
    const pos = tf.tensor2d(x.positions.map((r) => r.map((q) => q + OFFSET)), undefined, 'int32');
    let emb = tf.gather(p.get(`${P}embed_tokens.weight`), x.ids);
    if (a.proj !== a.hidden) emb = lin(`${P}project_in`, emb);
    let h = dropout(tf.add(emb, tf.gather(p.get(`${P}embed_positions.weight`), pos)), a.dropout?.embd, t) as tf.Tensor3D;
    const cache: LayerCache[] = [];
    // Right-padded rows from position 0 in inference (scoring): onnxruntime's causal attention kernel.
    const byLength = attendsByLengths(x, headDim, a.dropout?.attn);
    for (let i = 0; i < a.layers; i++) {
      const r = layerScope(h, (h) => {
        const l = `${P}layers.${i}.`;
        const attnIn = a.normBefore ? norm(`${l}self_attn_layer_norm`, h) : h;
        const q = tf.mul(lin(`${l}self_attn.q_proj`, attnIn), 1 / Math.sqrt(headDim));
        const k = lin(`${l}self_attn.k_proj`, attnIn), v = lin(`${l}self_attn.v_proj`, attnIn);
        const att = causalSelfAttention(x, i, byLength, q, k, v, a.heads, headDim, 1, a.dropout?.attn);
        // From here on row by row: where only some final rows are read, only those.
        const after = afterAttention(x.at, i, a.layers, h, att.out);
        h = after.h;
        h = tf.add(h, dropout(lin(`${l}self_attn.out_proj`, after.att), a.dropout?.resid, t)) as tf.Tensor3D;
        if (!a.normBefore) h = norm(`${l}self_attn_layer_norm`, h) as tf.Tensor3D;
        const mlpIn = a.normBefore ? norm(`${l}final_layer_norm`, h) : h;
        h = tf.add(h, dropout(lin(`${l}fc2`, act(lin(`${l}fc1`, mlpIn))), a.dropout?.resid, t)) as tf.Tensor3D;
        if (!a.normBefore) h = norm(`${l}final_layer_norm`, h) as tf.Tensor3D;
        return { h, cache: att.cache };
      });
      h = r.h;
      cache.push(r.cache);
    }
    if (a.finalNorm) h = norm(`${P}final_layer_norm`, h) as tf.Tensor3D;
    if (a.proj !== a.hidden) h = lin(`${P}project_out`, h) as tf.Tensor3D;
    return { hidden: h, cache };
  },

  logits(_a, p, hidden) {
    return lmHead(p, hidden, `${P}embed_tokens.weight`);
  },
};
