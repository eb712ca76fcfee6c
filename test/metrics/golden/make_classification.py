#!/usr/bin/python3
"""Writes classification.json: expected accuracy, binary P/R/F1, macro-F1 and exact match.

Run with Debian's Python with scikit-learn (apt-get install -y python3-sklearn):
    /usr/bin/python3 test/metrics/golden/make_classification.py
Binary scores are sklearn's on labels reduced to (label == positive), zero_division=0; macro-F1 is
f1_score(average='macro', zero_division=0), with labels= when a case gives them. Exact match with
normalisation uses the SQuAD v1.1 evaluation's normalize_answer, restated below from its definition.
"""
import json
import os
import random
import re
import string

import sklearn
from sklearn.metrics import accuracy_score, f1_score, precision_score, recall_score


def squad_normalize(s):
    s = s.lower()
    s = "".join(ch for ch in s if ch not in set(string.punctuation))
    s = re.sub(r"\b(a|an|the)\b", " ", s)
    return " ".join(s.split())


def random_case(seed, n, labels, noise_labels):
    rng = random.Random(seed)
    golds = [rng.choice(labels) for _ in range(n)]
    preds = [g if rng.random() < 0.6 else rng.choice(labels + noise_labels) for g in golds]
    return golds, preds


CASES = [
    dict(name="binary, mixed", golds=["yes", "no", "yes", "yes", "no", "no"],
         predictions=["yes", "yes", "no", "yes", "no", "no"], positive="yes"),
    dict(name="all correct", golds=["pos", "neg", "pos"], predictions=["pos", "neg", "pos"], positive="pos"),
    dict(name="no positives in gold or predictions", golds=["neg", "neg", "neg"],
         predictions=["neg", "neg", "neg"], positive="pos"),
    dict(name="never predicts the positive label", golds=["pos", "neg", "pos", "neg"],
         predictions=["neg", "neg", "neg", "neg"], positive="pos"),
    dict(name="predicts only the positive label", golds=["pos", "neg", "neg", "neg"],
         predictions=["pos", "pos", "pos", "pos"], positive="pos"),
    dict(name="unknown predicted labels", golds=["entailment", "neutral", "contradiction", "neutral"],
         predictions=["entailment", "", "maybe", "neutral"], positive="entailment"),
    dict(name="unknown predicted labels, fixed label set", golds=["entailment", "neutral", "contradiction", "neutral"],
         predictions=["entailment", "", "maybe", "neutral"], positive="neutral",
         labels=["contradiction", "entailment", "neutral"]),
    dict(name="single example, wrong", golds=["a"], predictions=["b"], positive="a"),
]
golds, preds = random_case(5, 250, ["0", "1", "2"], ["-1"])
CASES.append(dict(name="random 250, three labels and noise", golds=golds, predictions=preds, positive="1"))
golds, preds = random_case(6, 97, ["true", "false"], [])
CASES.append(dict(name="random 97, binary", golds=golds, predictions=preds, positive="true"))

EXACT_MATCH = [
    dict(predictions=["The Eiffel Tower", "paris", "an apple", "42", "Mitochondria!", "the the", "A  cat\tsat"],
         references=["Eiffel Tower", "Paris", "apple", "42.", "mitochondria", "", "cat sat"]),
    dict(predictions=["The\u2003end", "the\x1cend", "theory of an_a", "Ünited\u00a0A", "the\ufeffend", "a\u0301b"],
         references=["end", "end", "theory of an_a", "ünited", "end", "b"]),
]


def main():
    out = []
    for case in CASES:
        g, p, pos = case["golds"], case["predictions"], case["positive"]
        gb = [x == pos for x in g]
        pb = [x == pos for x in p]
        kw = dict(pos_label=True, average="binary", zero_division=0)
        expected = dict(
            accuracy=accuracy_score(g, p),
            binaryP=precision_score(gb, pb, **kw),
            binaryR=recall_score(gb, pb, **kw),
            binaryF1=f1_score(gb, pb, **kw),
            macroF1=f1_score(g, p, average="macro", zero_division=0, labels=case.get("labels")),
        )
        out.append(dict(case, expected={k: float(v) for k, v in expected.items()}))
    em = []
    for case in EXACT_MATCH:
        p, r = case["predictions"], case["references"]
        em.append(dict(case, expected=dict(
            raw=sum(a == b for a, b in zip(p, r)) / len(r),
            squad=sum(squad_normalize(a) == squad_normalize(b) for a, b in zip(p, r)) / len(r),
            normalized=[squad_normalize(x) for x in p + r],
        )))
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "classification.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(dict(made_by="make_classification.py", sklearn=sklearn.__version__, cases=out, exact_match=em),
                  f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
