"""Golden values for genstudy's AdamW, global-norm clipping and warmup schedules, from PyTorch.

Run with Debian's python3-torch: /usr/bin/python3 test/train/golden/make_adamw.py
Writes adamw.json beside this file: the inputs (initial parameters, per-step gradients, settings)
and what torch.optim.AdamW + torch.nn.utils.clip_grad_norm_ + torch.optim.lr_scheduler.LambdaLR
(with the multiplier functions of transformers' get_*_schedule_with_warmup) make of them.
"""
import json
import math
import os

import torch

torch.manual_seed(0)
STEPS = 5
LR = 0.01
WD = 0.1
BETAS = (0.9, 0.95)
EPS = 1e-6
MAX_NORM = 1.0
WARMUP = 2


def linear(step):  # transformers' get_linear_schedule_with_warmup
    if step < WARMUP:
        return step / max(1, WARMUP)
    return max(0.0, (STEPS - step) / max(1, STEPS - WARMUP))


def cosine(step):  # transformers' get_cosine_schedule_with_warmup, num_cycles = 0.5
    if step < WARMUP:
        return step / max(1, WARMUP)
    progress = (step - WARMUP) / max(1, STEPS - WARMUP)
    return max(0.0, 0.5 * (1.0 + math.cos(math.pi * 0.5 * 2.0 * progress)))


w0 = torch.randn(3, 4)
b0 = torch.randn(4)
grads = [(torch.randn(3, 4) * (1 + s), torch.randn(4) * (1 + s)) for s in range(STEPS)]

out = {"settings": {"steps": STEPS, "lr": LR, "weight_decay": WD, "betas": BETAS, "eps": EPS, "max_norm": MAX_NORM, "warmup": WARMUP},
       "w0": w0.flatten().tolist(), "b0": b0.tolist(),
       "grads": [[g[0].flatten().tolist(), g[1].tolist()] for g in grads], "runs": {}}

for name, fn in [("linear", linear), ("cosine", cosine)]:
    w = torch.nn.Parameter(w0.clone())
    b = torch.nn.Parameter(b0.clone())
    # Trainer's grouping: the bias gets no weight decay.
    opt = torch.optim.AdamW([{"params": [w], "weight_decay": WD}, {"params": [b], "weight_decay": 0.0}], lr=LR, betas=BETAS, eps=EPS)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, fn)
    lrs, norms = [], []
    for s in range(STEPS):
        w.grad = grads[s][0].clone()
        b.grad = grads[s][1].clone()
        norms.append(float(torch.nn.utils.clip_grad_norm_([w, b], MAX_NORM)))
        lrs.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step()
    out["runs"][name] = {"lrs": lrs, "grad_norms": norms, "w": w.detach().flatten().tolist(), "b": b.detach().tolist(),
                         "exp_avg_w": opt.state[w]["exp_avg"].flatten().tolist(), "exp_avg_sq_w": opt.state[w]["exp_avg_sq"].flatten().tolist()}

out["torch_version"] = torch.__version__
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "adamw.json"), "w") as f:
    json.dump(out, f, indent=1)
