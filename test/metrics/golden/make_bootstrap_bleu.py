"""Golden values for src/metrics/bleu.ts and src/metrics/rougeBootstrap.ts.

BLEU: sacrebleu 2.6.0 itself, `BLEU().corpus_score(hyps, [refs])` (study B's indicator_cross.py:15-18),
on generated corpora that exercise the 13a tokenizer (punctuation, digits with "." "," "-", HTML
entities, "-\\n", newlines, non-ASCII, empty strings) and the exp smoothing.

Bootstrap: rouge-score is not installable here (absent from the pip index), so its
BootstrapAggregator (rouge_score/scoring.py: aggregate() and _bootstrap_resample(), n_samples=1000,
confidence_interval=0.95) is restated below in its own ten lines; numpy is the reference for what
decides the numbers: the legacy global generator (np.random.seed, np.random.choice), the axis-0 mean
and np.percentile. The ROUGE types are resampled in the order the HF rouge metric adds them, from one
generator stream, as the metric does after np.random.seed(seed).

Run: python3 -m venv /tmp/v && /tmp/v/bin/pip install sacrebleu==2.6.0 numpy && /tmp/v/bin/python make_bootstrap_bleu.py
"""
import json
import random

import numpy as np
import sacrebleu
from sacrebleu.metrics import BLEU

WORDS = ["the", "cat", "sat", "on", "a", "mat", "Dog", "ran", "U.S.", "3.5", "1,000", "well-known", "2010-2012", "x-ray",
         "don't", "(note)", "[1]", "{x}", "$5", "50%", "&amp;", "&quot;hi&quot;", "e.g.,", "end.", "Zürich", "naïve", "日本",
         "--", "a/b", "@home", "#tag", "~", "^", "`q`", "<skipped>", "-\n", "\n", "  ", "\t", "co-op", "9-5", "p.m.", "A,B"]


def sentence(rng: random.Random, lo: int, hi: int) -> str:
    n = rng.randint(lo, hi)
    out = ""
    for _ in range(n):
        w = rng.choice(WORDS)
        out += w if w.isspace() or w == "-\n" else (" " if out and rng.random() < 0.85 else "") + w
    return out


def perturb(rng: random.Random, ref: str) -> str:
    toks = ref.split(" ")
    out = [t for t in toks if rng.random() > 0.25]
    for _ in range(rng.randint(0, 3)):
        out.insert(rng.randint(0, len(out)), rng.choice(WORDS))
    return " ".join(out)


def bleu_cases():
    rng = random.Random(12)
    cases = []
    for size in [1, 1, 2, 3, 5, 8, 13, 21, 34, 55]:
        for _ in range(3):
            refs = [sentence(rng, 0, 30) for _ in range(size)]
            hyps = [perturb(rng, r) if rng.random() < 0.8 else sentence(rng, 0, 12) for r in refs]
            cases.append((hyps, refs))
    cases.append((["", ""], ["a b c", "d e"]))
    cases.append((["x y z"], ["a b c"]))
    cases.append((["a b c d"], ["a b c d"]))
    cases.append((["a b"], ["a b c d e f g"]))
    cases.append((["a b c x"], ["a b c d"]))
    out = []
    for hyps, refs in cases:
        s = BLEU().corpus_score(hyps, [refs])
        out.append({"hypotheses": hyps, "references": refs, "score": s.score, "counts": s.counts, "totals": s.totals,
                    "precisions": s.precisions, "bp": s.bp, "sys_len": s.sys_len, "ref_len": s.ref_len})
    return out


def bootstrap_resample(matrix, n_samples=1000, confidence_interval=0.95):
    # rouge_score.scoring.BootstrapAggregator._bootstrap_resample
    sample_mean = np.zeros((n_samples, matrix.shape[1]))
    for i in range(n_samples):
        sample_idx = np.random.choice(np.arange(matrix.shape[0]), size=matrix.shape[0])
        sample = matrix[sample_idx, :]
        sample_mean[i, :] = np.mean(sample, axis=0)
    percentiles = 100 * np.array([(1.0 - confidence_interval) / 2.0, 0.5, 1.0 - ((1.0 - confidence_interval) / 2.0)])
    return np.percentile(sample_mean, percentiles, axis=0)


def bootstrap_cases():
    rng = np.random.RandomState(7)
    out = []
    for n in [1, 2, 5, 37, 250]:
        scores = []
        for _ in range(n):
            row = {}
            for t in ["rouge1", "rouge2", "rougeL", "rougeLsum"]:
                p, r = (0.0, 0.0) if rng.rand() < 0.1 else (float(rng.rand()), float(rng.rand()))
                f = 0.0 if p + r == 0 else 2 * p * r / (p + r)
                row[t] = {"p": p, "r": r, "f": f}
            scores.append(row)
        for seed in [0, 42]:
            np.random.seed(seed)
            result = {}
            for t in ["rouge1", "rouge2", "rougeL", "rougeLsum"]:  # aggregate(): one stream, this order
                m = np.array([[s[t]["p"], s[t]["r"], s[t]["f"]] for s in scores])
                low, mid, high = bootstrap_resample(m)
                result[t] = {k: {"p": float(v[0]), "r": float(v[1]), "f": float(v[2])} for k, v in (("low", low), ("mid", mid), ("high", high))}
            out.append({"seed": seed, "scores": scores, "aggregate": result})
    return out


if __name__ == "__main__":
    golden = {"sacrebleu": sacrebleu.__version__, "numpy": np.__version__, "bleu": bleu_cases(), "bootstrap": bootstrap_cases()}
    with open("bootstrap_bleu.json", "w", encoding="utf-8") as f:
        json.dump(golden, f, ensure_ascii=False)
        f.write("\n")
