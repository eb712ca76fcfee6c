# The Llama-family forward of the PyTorch reference benchmarks (engine_reference.py, train_reference.py),
# following transformers' modeling_llama.py: RMSNorm, rotary with rotate_half, grouped-query attention
# through scaled_dot_product_attention where it exists (transformers' default "sdpa" attention; the
# key-value heads unrepeated on PyTorch 2.5+, repeated on 2.0-2.4, eager on 1.x), SwiGLU. `lora` maps a
# projection's full name to a callable added to its output (train_reference.py's adapters).
import math

import torch

GQA_SDPA = tuple(int(x) for x in torch.__version__.split('.')[:2]) >= (2, 5)


def rms_norm(x, weight, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


def attend(q, k, v, groups):
    sdpa = getattr(torch.nn.functional, 'scaled_dot_product_attention', None)
    if GQA_SDPA:
        return sdpa(q, k, v, is_causal=True, enable_gqa=True)
    k, v = k.repeat_interleave(groups, dim=1), v.repeat_interleave(groups, dim=1)
    if sdpa is not None:
        return sdpa(q, k, v, is_causal=True)
    t = q.shape[2]
    causal = torch.triu(torch.full((t, t), float('-inf')), 1)
    return torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1]) + causal, dim=-1) @ v


def llama_hidden_states(c, w, ids, lora=None):
    """The final normed hidden states [B, T, hidden] of token ids [B, T]."""
    lora = lora or {}
    b, t = ids.shape
    e, nh, nkv = c['hidden_size'], c['num_attention_heads'], c['num_key_value_heads']
    hd, eps = e // nh, c['rms_norm_eps']
    inv = 1.0 / (c.get('rope_theta', 10000.0) ** (torch.arange(0, hd, 2, dtype=torch.int64).float() / hd))
    freqs = torch.arange(t).float()[:, None] * inv[None, :]
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos(), emb.sin()

    def lin(name, x):
        y = x @ w[name + '.weight'].T
        return y + lora[name](x) if name in lora else y

    h = w['model.embed_tokens.weight'][ids]
    for i in range(c['num_hidden_layers']):
        l = f'model.layers.{i}.'
        a = rms_norm(h, w[l + 'input_layernorm.weight'], eps)
        q = lin(l + 'self_attn.q_proj', a).view(b, t, nh, hd).transpose(1, 2)
        k = lin(l + 'self_attn.k_proj', a).view(b, t, nkv, hd).transpose(1, 2)
        v = lin(l + 'self_attn.v_proj', a).view(b, t, nkv, hd).transpose(1, 2)
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        att = attend(q, k, v, nh // nkv)
        h = h + lin(l + 'self_attn.o_proj', att.transpose(1, 2).reshape(b, t, -1))
        m = rms_norm(h, w[l + 'post_attention_layernorm.weight'], eps)
        h = h + lin(l + 'mlp.down_proj', torch.nn.functional.silu(lin(l + 'mlp.gate_proj', m)) * lin(l + 'mlp.up_proj', m))
    return rms_norm(h, w['model.norm.weight'], eps)
