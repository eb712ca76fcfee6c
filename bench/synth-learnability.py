# Does a tiny transformer trained from scratch on CPU learn the synthetic suite, and do its OOD
# accuracies across checkpoints show the designed structure? A check with PyTorch, independent of
# genstudy's own engine. Study A's setup: prompt "{premise}Question: {hypothesis} Yes or No?",
# cross-entropy over the whole vocabulary at the last position with the label word's token as the
# target, prediction = argmax over the " Yes" / " No" tokens there.
# Usage:
#   node --import tsx bench/synth-write-suite.ts /tmp/suite 1 4000 500
#   /usr/bin/python3 bench/synth-learnability.py /tmp/suite [steps] [eval_every] [seed] [eval_rows]   (THREADS=n for torch threads)
import json, math, os, re, sys, time
import torch
import torch.nn as nn

suite_dir = sys.argv[1]
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 1500
eval_every = int(sys.argv[3]) if len(sys.argv) > 3 else 50
seed = int(sys.argv[4]) if len(sys.argv) > 4 else 0
eval_rows = int(sys.argv[5]) if len(sys.argv) > 5 else 500
torch.manual_seed(seed)
torch.set_num_threads(int(os.environ.get("THREADS", "1")))

manifest = json.load(open(os.path.join(suite_dir, "suite.json")))
vocab = json.load(open(os.path.join(suite_dir, "tokenizer.json")))["model"]["vocab"]
BOS, PAD = vocab["<s>"], vocab["<pad>"]
YES, NO = vocab["Yes"], vocab["No"]
template = manifest["task"]["template"]

def encode(row):
    text = template.replace("{premise}", row["premise"]).replace("{hypothesis}", row["hypothesis"])
    return [BOS] + [vocab[t] for t in re.findall(r"\w+|[^\w\s]+", text)]

SENT = re.compile(r"^the (\w+)( never)? (\w+) the (\w+)(?: in the (\w+))?\.$")

def kind(row):
    """The construction of an example, read off the text (for the per-kind breakdown)."""
    p, h = SENT.match(row["premise"]).groups(), SENT.match(row["hypothesis"]).groups()
    if p[1] != h[1]:
        return "polarity"
    diffs = [name for name, i in (("subject", 0), ("verb", 2), ("object", 3), ("place", 4)) if p[i] != h[i]]
    if p[0] == h[3] and p[3] == h[0] and p[0] != p[3]:
        return "swap"
    return ("neg:" if p[1] else "") + ("+".join(diffs) or "identical")

def load(name):
    rows = [json.loads(l) for l in open(os.path.join(suite_dir, name)) if l.strip()]
    kinds[name] = [kind(r) + ":" + r["label"] for r in rows]
    ids = [encode(r) for r in rows]
    n = max(len(x) for x in ids)
    x = torch.full((len(ids), n), PAD, dtype=torch.long)
    lengths = torch.tensor([len(s) for s in ids])
    for i, s in enumerate(ids):
        x[i, : len(s)] = torch.tensor(s)
    y = torch.tensor([YES if r["label"] == "Yes" else NO for r in rows])
    return x, lengths, y

kinds = {}
train = load(manifest["train"]["file"])
tests = {"train": tuple(t[:eval_rows] for t in train)}
tests.update({s["id"]: tuple(t[:eval_rows] for t in load(s["file"])) for s in manifest["sets"]})

class Tiny(nn.Module):
    def __init__(self, v, d=64, layers=2, heads=4, max_len=64):
        super().__init__()
        self.tok = nn.Embedding(v, d)
        self.pos = nn.Embedding(max_len, d)
        layer = nn.TransformerEncoderLayer(d, heads, 4 * d, dropout=0.0, batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, layers)
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, v)
    def forward(self, x, lengths):
        n = x.shape[1]
        h = self.tok(x) + self.pos(torch.arange(n))[None]
        mask = torch.triu(torch.full((n, n), float("-inf")), 1)
        h = self.blocks(h, mask=mask, src_key_padding_mask=(x == PAD))
        last = self.norm(h[torch.arange(x.shape[0]), lengths - 1])
        return self.head(last)

model = Tiny(len(vocab))
opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
loss_fn = nn.CrossEntropyLoss()

def evaluate():
    model.eval()
    out = {}
    with torch.no_grad():
        for sid, (x, l, y) in tests.items():
            logits = model(x, l)
            pred = torch.where(logits[:, YES] >= logits[:, NO], YES, NO)
            out[sid] = (pred == y).float().mean().item()
    model.train()
    return out

history = []
t0 = time.time()
x, l, y = train
for step in range(steps + 1):
    if step % eval_every == 0:
        acc = evaluate()
        history.append((step, acc))
        print(step, f"{time.time() - t0:.0f}s", " ".join(f"{k}={v:.3f}" for k, v in acc.items()), flush=True)
    if step == steps:
        break
    idx = torch.randint(0, x.shape[0], (64,))
    loss = loss_fn(model(x[idx], l[idx]), y[idx])
    opt.zero_grad()
    loss.backward()
    opt.step()

def resid(a, b):
    mb, ma = sum(b) / len(b), sum(a) / len(a)
    sxx = sum((v - mb) ** 2 for v in b) or 1e-12
    beta = sum((b[i] - mb) * (a[i] - ma) for i in range(len(a))) / sxx
    return [a[i] - ma - beta * (b[i] - mb) for i in range(len(a))]

def pearson(a, b):
    ma, mb = sum(a) / len(a), sum(b) / len(b)
    num = sum((a[i] - ma) * (b[i] - mb) for i in range(len(a)))
    den = math.sqrt(sum((v - ma) ** 2 for v in a) * sum((v - mb) ** 2 for v in b)) or 1e-12
    return num / den

series = {sid: [acc[sid] for _, acc in history[1:]] for sid in tests if sid != "train"}
idacc = series["in-domain"]
print("partial correlations (ID regressed out, linear), expected sign from suite.json:")
for c in manifest["expectedCorrelations"]:
    r = pearson(resid(series[c["a"]], idacc), resid(series[c["b"]], idacc))
    print(f"  {c['a']:>26} ~ {c['b']:<26} r = {r:+.2f}  expected {c['sign']}")

model.eval()
with torch.no_grad():
    x, l, y = load("in-domain.jsonl")
    logits = model(x, l)
    ok = (torch.where(logits[:, YES] >= logits[:, NO], YES, NO) == y).tolist()
by = {}
for k, o in zip(kinds["in-domain.jsonl"], ok):
    by.setdefault(k, []).append(o)
print("in-domain accuracy by construction (kind:label  n  accuracy):")
for k in sorted(by):
    print(f"  {k:<40} {len(by[k]):>4}  {sum(by[k]) / len(by[k]):.2f}")
