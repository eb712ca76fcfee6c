#!/usr/bin/python3
"""PyTorch reference for bench/train.ts: training steps of the same model (GPT-2 or Llama family,
bench/model-shapes.ts) on the same token ids with the threads the bench asks for.

Usage: /usr/bin/python3 bench/train_reference.py DIR full|lora STEPS BATCH
DIR holds config.json, model.safetensors (float32) and ids.json. The forward follows transformers'
modeling_gpt2.py (eager attention, gelu_new, tied lm_head); the loss is token cross-entropy at every
position; AdamW (lr 1e-4, weight decay 0.01 except biases and norm weights), clip_grad_norm_(1.0).
LoRA: r 8, alpha 16, dropout 0.1 on attn.c_attn, attn.c_proj and mlp.c_proj (PEFT's matching of
"c_attn", "c_proj"), base weights frozen; on Llama the q/k/v/o projections (genstudy's default
targets). The Llama forward follows modeling_llama.py (RMSNorm, rotary, grouped-query attention
through scaled_dot_product_attention where it exists, SwiGLU, tied lm_head). Two warm-up steps, then STEPS timed steps.
With GENSTUDY_BENCH_REFERENCE=transformers, the model is loaded by transformers instead
(AutoModelForCausalLM.from_pretrained on DIR, train mode, its default attention and its config's
dropouts, as genstudy's engine reads them) and LoRA is PEFT's (LoraConfig r 8, alpha 16, dropout 0.1
on the same modules): what the hf backend's Trainer runs, with the same loss, AdamW and clipping.
Prints JSON: tokens per second (wall and CPU), the first step's loss, peak RSS in MB.
"""
import json
import math
import os
import resource
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_safetensors import read_safetensors  # noqa: E402
from torch_llama import llama_hidden_states  # noqa: E402

# Threads as the bench asks (GENSTUDY_BENCH_THREADS; OMP/OpenBLAS/MKL pools are pinned to the same number).
torch.set_num_threads(int(os.environ.get("GENSTUDY_BENCH_THREADS", "1")))
torch.manual_seed(0)


def gelu_new(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


class Lora:
    def __init__(self, fan_in, fan_out, r=8, alpha=16, dropout=0.1):
        self.a = torch.nn.Parameter(torch.empty(r, fan_in).uniform_(-1 / math.sqrt(fan_in), 1 / math.sqrt(fan_in)))
        self.b = torch.nn.Parameter(torch.zeros(fan_out, r))
        self.scale = alpha / r
        self.drop = torch.nn.Dropout(dropout)

    def __call__(self, x):
        return (self.drop(x) @ self.a.T @ self.b.T) * self.scale


def forward(c, w, lora, ids):
    p, nh, e = 'transformer.', c['n_head'], c['n_embd']
    b, t = ids.shape
    hd = e // nh
    eps = c['layer_norm_epsilon']
    h = w[p + 'wte.weight'][ids] + w[p + 'wpe.weight'][torch.arange(t)]
    causal = torch.triu(torch.full((t, t), float('-inf')), 1)

    def lin(name, x):
        y = torch.addmm(w[name + '.bias'], x, w[name + '.weight'])
        return y + lora[name](x) if name in lora else y

    for i in range(c['n_layer']):
        l = f'{p}h.{i}.'
        a = torch.nn.functional.layer_norm(h, (e,), w[l + 'ln_1.weight'], w[l + 'ln_1.bias'], eps)
        qkv = lin(l + 'attn.c_attn', a.view(-1, e)).view(b, t, -1)
        q, k, v = (x.view(b, t, nh, hd).transpose(1, 2) for x in qkv.split(e, dim=2))
        att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(hd) + causal, dim=-1) @ v
        h = h + lin(l + 'attn.c_proj', att.transpose(1, 2).reshape(b * t, -1)).view(b, t, -1)
        m = torch.nn.functional.layer_norm(h, (e,), w[l + 'ln_2.weight'], w[l + 'ln_2.bias'], eps)
        h = h + lin(l + 'mlp.c_proj', gelu_new(lin(l + 'mlp.c_fc', m.view(b * t, -1)))).view(b, t, -1)
    h = torch.nn.functional.layer_norm(h, (e,), w[p + 'ln_f.weight'], w[p + 'ln_f.bias'], eps)
    return h @ w[p + 'wte.weight'].T


LLAMA_LORA = ['self_attn.q_proj', 'self_attn.k_proj', 'self_attn.v_proj', 'self_attn.o_proj']


def llama_forward(c, w, lora, ids):
    return llama_hidden_states(c, w, ids, lora) @ w['model.embed_tokens.weight'].T


def transformers_model(d, method, llama):
    import transformers
    model = transformers.AutoModelForCausalLM.from_pretrained(d, dtype=torch.float32)
    model.train()
    if method == 'lora':
        import peft
        targets = [n.split('.')[-1] for n in LLAMA_LORA] if llama else ['c_attn', 'c_proj']
        model = peft.get_peft_model(model, peft.LoraConfig(r=8, lora_alpha=16, lora_dropout=0.1, target_modules=targets,
                                                           fan_in_fan_out=not llama))
        params = [p for p in model.parameters() if p.requires_grad]
        return model, params, [{'params': params, 'weight_decay': 0.01}]
    named = [(k, v) for k, v in model.named_parameters()]
    decay = [v for k, v in named if not (k.endswith('.bias') or v.dim() == 1)]
    no_decay = [v for k, v in named if k.endswith('.bias') or v.dim() == 1]
    return model, decay + no_decay, [{'params': decay, 'weight_decay': 0.01}, {'params': no_decay, 'weight_decay': 0.0}]


def main():
    d, method, steps, batch = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    c = json.load(open(f'{d}/config.json'))
    via_transformers = os.environ.get('GENSTUDY_BENCH_REFERENCE') == 'transformers'
    w = {} if via_transformers else read_safetensors(f'{d}/model.safetensors')
    seqs = torch.tensor(json.load(open(f'{d}/ids.json')))
    llama = c['model_type'] == 'llama'
    lora, model = {}, None
    if via_transformers:
        model, params, groups = transformers_model(d, method, llama)
    elif method == 'full':
        for k in w:
            w[k] = torch.nn.Parameter(w[k])
        decay = [v for k, v in w.items() if not (k.endswith('.bias') or v.dim() == 1)]
        no_decay = [v for k, v in w.items() if k.endswith('.bias') or v.dim() == 1]
        groups = [{'params': decay, 'weight_decay': 0.01}, {'params': no_decay, 'weight_decay': 0.0}]
        params = decay + no_decay
    elif llama:
        for i in range(c['num_hidden_layers']):
            for name in LLAMA_LORA:
                full = f'model.layers.{i}.{name}'
                fan_out, fan_in = w[full + '.weight'].shape
                lora[full] = Lora(fan_in, fan_out)
        params = [t for m in lora.values() for t in (m.a, m.b)]
        groups = [{'params': params, 'weight_decay': 0.01}]
    else:
        for i in range(c['n_layer']):
            for name in ['attn.c_attn', 'attn.c_proj', 'mlp.c_proj']:
                full = f'transformer.h.{i}.{name}'
                fan_in, fan_out = w[full + '.weight'].shape
                lora[full] = Lora(fan_in, fan_out)
        params = [t for m in lora.values() for t in (m.a, m.b)]
        groups = [{'params': params, 'weight_decay': 0.01}]
    opt = torch.optim.AdamW(groups, lr=1e-4)

    def step(s):
        start = (s * batch) % len(seqs)
        ids = seqs[start:start + batch]
        logits = model(ids[:, :-1]).logits if model else (llama_forward if llama else forward)(c, w, lora, ids[:, :-1])
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), ids[:, 1:].reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        return loss.item(), ids[:, :-1].numel()

    first = step(0)[0]
    step(1)
    t0, c0 = time.perf_counter(), time.process_time()
    tokens = sum(step(s)[1] for s in range(2, 2 + steps))
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(json.dumps({'tokens_per_s': tokens / wall, 'tokens_per_cpu_s': tokens / cpu, 'first_loss': first,
                      'peak_rss_mb': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 'threads': torch.get_num_threads()}))


if __name__ == '__main__':
    main()
