#!/usr/bin/python3
"""PyTorch reference for bench/engine.ts: the same model (GPT-2 or Llama family, bench/model-shapes.ts),
weights and token ids, scored with the threads the bench asks for.

Usage: /usr/bin/python3 bench/engine_reference.py DIR CONT BATCH [MxKxN,...]
DIR holds config.json, model.safetensors (float32) and ids.json (sequences of token ids). Each
sequence is scored as context + continuation with the last CONT tokens as the continuation, in
batches of BATCH sequences. The GPT-2 forward follows transformers' modeling_gpt2.py (eager attention,
gelu_new, tied lm_head); the Llama forward follows modeling_llama.py (RMSNorm, rotary with
rotate_half, grouped-query attention through torch's scaled_dot_product_attention where it exists
(transformers' default "sdpa" attention; eager with repeated key-value heads on PyTorch 1.x), SwiGLU,
tied lm_head). Both run under torch.inference_mode. Two variants are timed:
  score       : the lm head and log-softmax only at the positions predicting continuation tokens
                (what the built-in engine does)
  full_logits : the lm head at every position, then log-softmax and gather (what a transformers
                model call followed by lm-evaluation-harness's scoring does)
With GENSTUDY_BENCH_REFERENCE=transformers, the model is instead loaded by transformers
(AutoModelForCausalLM.from_pretrained on DIR, its default attention) and scored the way
lm-evaluation-harness's HFLM does (lm_eval/models/huggingface.py, _loglikelihood_tokens: the model
call's logits, log_softmax over the vocabulary at every position, the continuation's slice gathered);
that one variant is timed and reported under the `score_` keys, in its own process for its memory.
With products named (MxKxN), also GFLOP per CPU-second of one a @ b of each shape (best of 5).
Prints JSON: tokens per second of each, by wall clock and by process CPU time (best of 3 passes), peak RSS in MB, the summed log-probability.
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


def gelu_new(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


def hidden_states(c, w, ids):
    p, nh = 'transformer.', c['n_head']
    b, t = ids.shape
    hd = c['n_embd'] // nh
    eps = c['layer_norm_epsilon']
    h = w[p + 'wte.weight'][ids] + w[p + 'wpe.weight'][torch.arange(t)]
    causal = torch.triu(torch.full((t, t), float('-inf')), 1)
    for i in range(c['n_layer']):
        l = f'{p}h.{i}.'
        a = torch.nn.functional.layer_norm(h, (c['n_embd'],), w[l + 'ln_1.weight'], w[l + 'ln_1.bias'], eps)
        qkv = torch.addmm(w[l + 'attn.c_attn.bias'], a.view(-1, c['n_embd']), w[l + 'attn.c_attn.weight']).view(b, t, -1)
        q, k, v = (x.view(b, t, nh, hd).transpose(1, 2) for x in qkv.split(c['n_embd'], dim=2))
        att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(hd) + causal, dim=-1) @ v
        att = att.transpose(1, 2).reshape(b * t, -1)
        h = h + torch.addmm(w[l + 'attn.c_proj.bias'], att, w[l + 'attn.c_proj.weight']).view(b, t, -1)
        m = torch.nn.functional.layer_norm(h, (c['n_embd'],), w[l + 'ln_2.weight'], w[l + 'ln_2.bias'], eps)
        m = gelu_new(torch.addmm(w[l + 'mlp.c_fc.bias'], m.view(b * t, -1), w[l + 'mlp.c_fc.weight']))
        h = h + torch.addmm(w[l + 'mlp.c_proj.bias'], m, w[l + 'mlp.c_proj.weight']).view(b, t, -1)
    return torch.nn.functional.layer_norm(h, (c['n_embd'],), w[p + 'ln_f.weight'], w[p + 'ln_f.bias'], eps)


def score(c, w, seqs, cont, batch, full):
    total = 0.0
    llama = c['model_type'] == 'llama'
    head = w['model.embed_tokens.weight' if llama else 'transformer.wte.weight']
    for s in range(0, len(seqs), batch):
        ids = torch.tensor(seqs[s:s + batch])
        inp, targets = ids[:, :-1], ids[:, -cont:]
        h = (llama_hidden_states if llama else hidden_states)(c, w, inp)
        if full:
            logp = torch.log_softmax(h @ head.T, dim=-1)[:, -cont:]
        else:
            logp = torch.log_softmax(h[:, -cont:] @ head.T, dim=-1)
        total += logp.gather(-1, targets.unsqueeze(-1)).sum().item()
    return total


def score_transformers(model, seqs, cont, batch):
    total = 0.0
    for s in range(0, len(seqs), batch):
        ids = torch.tensor(seqs[s:s + batch])
        logp = torch.log_softmax(model(ids[:, :-1]).logits, dim=-1)[:, -cont:]
        total += logp.gather(-1, ids[:, -cont:].unsqueeze(-1)).sum().item()
    return total


def main():
    d, cont, batch = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    c = json.load(open(f'{d}/config.json'))
    seqs = json.load(open(f'{d}/ids.json'))
    tokens = len(seqs) * len(seqs[0])
    out = {}
    if os.environ.get('GENSTUDY_BENCH_REFERENCE') == 'transformers':
        import transformers
        model = transformers.AutoModelForCausalLM.from_pretrained(d, dtype=torch.float32).eval()
        variants = [('score', lambda ss: score_transformers(model, ss, cont, batch))]
        out['transformers_version'] = transformers.__version__
    else:
        w = read_safetensors(f'{d}/model.safetensors')
        variants = [(name, lambda ss, full=full: score(c, w, ss, cont, batch, full)) for name, full in [('score', False), ('full_logits', True)]]
    with torch.inference_mode():
        for name, run in variants:
            full = name == 'full_logits'
            run(seqs[:batch])
            best, best_cpu = math.inf, math.inf
            for _ in range(3):
                t0, c0 = time.perf_counter(), time.process_time()
                total = run(seqs)
                best = min(best, time.perf_counter() - t0)
                best_cpu = min(best_cpu, time.process_time() - c0)
            out[f'{name}_tokens_per_s'] = tokens / best
            out[f'{name}_tokens_per_cpu_s'] = tokens / best_cpu
            if not full:
                out['logprob_sum'] = total
    if len(sys.argv) > 4:
        for shape in sys.argv[4].split(','):
            m, k, n = (int(x) for x in shape.split('x'))
            a, b = torch.randn(m, k), torch.randn(k, n)
            best = math.inf
            for rep in range(6):
                c0 = time.process_time()
                a @ b
                if rep > 0:
                    best = min(best, time.process_time() - c0)
            out[f'matmul_{shape}_gflop_per_cpu_s'] = 2 * m * k * n / max(best, 1e-9) / 1e9
    out['peak_rss_mb'] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    out['threads'] = torch.get_num_threads()
    out['torch_version'] = torch.__version__
    print(json.dumps(out))


if __name__ == '__main__':
    main()
