// GPT-2 (transformers' modeling_gpt2.py): learned positions, pre-LayerNorm blocks, fused qkv, GELU
// MLP, lm_head tied to the token embedding. Its projections are Conv1D modules (weights already
// [in, out]; `conv1d` on their ParamSpecs), and the two that write into the residual stream start
// from a smaller spread when initialised from scratch (`residual`).
import * as tf from '@tensorflow/tfjs-core';
import { UserError } from '../../../errors.ts';
import {
  activation, lmHead, attendsByLengths, causalSelfAttention, dropout, afterAttention, layerNorm, linear, layerScope, residualLinear,
} from '../blocks.ts';
import type { ParamSpec } from '../params.ts';
import { bool, num, str, type Arch, type LayerCache, type ScratchFamily, type StepInputs, type StepOutputs } from './family.ts';

export interface Gpt2Arch extends Arch {
  hidden: number; heads: number; inner: number; eps: number; act: string;
  scaleAttn: boolean; scaleByLayer: boolean; tie: boolean;
}

const P = 'transformer.';

export const gpt2: ScratchFamily<Gpt2Arch> = {
  modelTypes: ['gpt2'],
  label: 'GPT-2',
  // The fused q/k/v projection and the attention output.
  loraTargets: ['c_attn', 'c_proj'],
  sizeFields: ['n_embd', 'n_layer', 'n_head'],

  scratchConfig: (vocabSize, s) => ({
    architectures: ['GPT2LMHeadModel'], model_type: 'gpt2', vocab_size: vocabSize, n_positions: s.positions,
    n_embd: s.hidden, n_layer: s.layers, n_head: s.heads, n_inner: null,
    activation_function: 'gelu_new', layer_norm_epsilon: 1e-5, initializer_range: 0.02, tie_word_embeddings: true, scale_attn_weights: true,
    bos_token_id: 1, eos_token_id: 2, resid_pdrop: s.dropout ?? 0, embd_pdrop: s.dropout ?? 0, attn_pdrop: s.dropout ?? 0,
  }),

  parseConfig(cfg, file) {
    const hidden = num(cfg, 'n_embd', file, 768);
    const heads = num(cfg, 'n_head', file, 12);
    if (hidden % heads !== 0) throw new UserError(`${file}: n_embd ${hidden} is not divisible by n_head ${heads}`);
    const act = str(cfg, 'activation_function', file, 'gelu_new');
    if (!activation(act)) throw new UserError(`${file}: activation_function "${act}" is not supported`);
    return {
      modelType: 'gpt2', vocabSize: num(cfg, 'vocab_size', file, 50257), layers: num(cfg, 'n_layer', file, 12),
      maxPositions: num(cfg, 'n_positions', file, 1024), outputWidth: hidden,
      hidden, heads, inner: num(cfg, 'n_inner', file, 4 * hidden), eps: num(cfg, 'layer_norm_epsilon', file, 1e-5), act,
      scaleAttn: bool(cfg, 'scale_attn_weights', file, true), scaleByLayer: bool(cfg, 'scale_attn_by_inverse_layer_idx', file, false),
      tie: bool(cfg, 'tie_word_embeddings', file, true),
      dropout: { embd: num(cfg, 'embd_pdrop', file, 0.1), attn: num(cfg, 'attn_pdrop', file, 0.1), resid: num(cfg, 'resid_pdrop', file, 0.1) },
    };
  },

  params(a) {
    const h = a.hidden;
    const specs: ParamSpec[] = [
      { name: `${P}wte.weight`, shape: [a.vocabSize, h] },
      { name: `${P}wpe.weight`, shape: [a.maxPositions, h] },
      { name: `${P}ln_f.weight`, shape: [h], norm: true }, { name: `${P}ln_f.bias`, shape: [h] },
    ];
    if (!a.tie) specs.push({ name: 'lm_head.weight', shape: [a.vocabSize, h], linear: true });
    for (let i = 0; i < a.layers; i++) {
      const l = `${P}h.${i}.`;
      specs.push(
        { name: `${l}ln_1.weight`, shape: [h], norm: true }, { name: `${l}ln_1.bias`, shape: [h] },
        { name: `${l}attn.c_attn.weight`, shape: [h, 3 * h], conv1d: true }, { name: `${l}attn.c_attn.bias`, shape: [3 * h] },
        { name: `${l}attn.c_proj.weight`, shape: [h, h], conv1d: true, residual: true }, { name: `${l}attn.c_proj.bias`, shape: [h] },
        { name: `${l}ln_2.weight`, shape: [h], norm: true }, { name: `${l}ln_2.bias`, shape: [h] },
        { name: `${l}mlp.c_fc.weight`, shape: [h, a.inner], conv1d: true }, { name: `${l}mlp.c_fc.bias`, shape: [a.inner] },
        { name: `${l}mlp.c_proj.weight`, shape: [a.inner, h], conv1d: true, residual: true }, { name: `${l}mlp.c_proj.bias`, shape: [h] },
      );
    }
    return specs;
  },

  // The original OpenAI checkpoints on the hub store the transformer without its prefix.
  aliases: (name) => (name.startsWith(P) ? [name.slice(P.length)] : []),

  forward(a, p, x: StepInputs): StepOutputs {
    const act = activation(a.act)!;
    const headDim = a.hidden / a.heads;
    const pos = tf.tensor2d(x.positions, undefined, 'int32');
    const t = x.training;
    const embedded = tf.add(tf.gather(p.get(`${P}wte.weight`), x.ids), tf.gather(p.get(`${P}wpe.weight`), pos));
    let h = dropout(embedded, a.dropout?.embd, t) as tf.Tensor3D;
    const cache: LayerCache[] = [];
    // Right-padded rows from position 0 in inference (scoring): onnxruntime's causal attention kernel.
    const byLength = attendsByLengths(x, headDim, a.dropout?.attn);
    for (let i = 0; i < a.layers; i++) {
      const r = layerScope(h, (h) => {
        const l = `${P}h.${i}.`;
        const n1 = layerNorm(h, p.get(`${l}ln_1.weight`), p.get(`${l}ln_1.bias`), a.eps);
        const qkv = linear(n1, p.get(`${l}attn.c_attn.weight`), p.get(`${l}attn.c_attn.bias`), t);
        const [q, k, v] = tf.split(qkv, 3, 2);
        let scale = a.scaleAttn ? 1 / Math.sqrt(headDim) : 1;
        if (a.scaleByLayer) scale /= i + 1;
        const att = causalSelfAttention(x, i, byLength, q, k, v, a.heads, headDim, scale, a.dropout?.attn);
        // From here on row by row: where only some final rows are read, only those.
        const after = afterAttention(x.at, i, a.layers, h, att.out);
        h = after.h;
        h = residualLinear(h, after.att, p.get(`${l}attn.c_proj.weight`), p.get(`${l}attn.c_proj.bias`), a.dropout?.resid, t) as tf.Tensor3D;
        const n2 = layerNorm(h, p.get(`${l}ln_2.weight`), p.get(`${l}ln_2.bias`), a.eps);
        const inner = act(linear(n2, p.get(`${l}mlp.c_fc.weight`), p.get(`${l}mlp.c_fc.bias`), t));
        h = residualLinear(h, inner, p.get(`${l}mlp.c_proj.weight`), p.get(`${l}mlp.c_proj.bias`), a.dropout?.resid, t) as tf.Tensor3D;
        return { h, cache: att.cache };
      });
      h = r.h;
      cache.push(r.cache);
    }
    return { hidden: layerNorm(h, p.get(`${P}ln_f.weight`), p.get(`${P}ln_f.bias`), a.eps) as tf.Tensor3D, cache };
  },

  logits(_a, p, hidden) {
    return lmHead(p, hidden, `${P}wte.weight`);
  },
};
