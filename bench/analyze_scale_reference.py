#!/usr/bin/python3
"""numpy/scipy/pandas reference for bench/analyze-scale.ts: `genstudy analyze --inference naive
--calibration 0 --no-robustness` on a long score table, the whole process timed from outside.

Usage: /usr/bin/python3 bench/analyze_scale_reference.py SCORES.csv
Reads the CSV (run, step, test_set, metric, value) with pandas, and per run: the series of every
test set over the run's steps, the control `in-domain`; every OOD set residualised on it once (the
residualiser genstudy's 'auto' picks: the GCV cubic regression spline of bench/stats_reference.py
from 12 checkpoints, its basis min(10, max(3, distinct control values // 2)), else the line), r of
every pair of residual series, p from the t test on n - 2 - k df (k: the larger edf of the pair),
then Holm over the run's pairs. Prints JSON {runs: {run: {a, b, r, p, p_adjusted}}}, pairs in
genstudy's order (sets sorted, a < b).
"""
import json
import os
import sys

import numpy as np
import pandas as pd


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stats_reference import linear, spline  # noqa: E402  (the same residualisers bench/stats.ts checks)
from analyze_reference import holm  # noqa: E402

CONTROL = "in-domain"


def run_pairs(control, data):
    n = len(control)
    if n < 12:
        return linear(control, data)
    k = min(10, max(3, len(np.unique(control)) // 2))
    return spline(control, data, k)


def main():
    scores = pd.read_csv(sys.argv[1], dtype={"run": str, "test_set": str, "metric": str})
    out = {}
    for run, group in scores.groupby("run", sort=True):
        table = group.pivot(index="step", columns="test_set", values="value").sort_index()
        names = sorted(c for c in table.columns if c != CONTROL)
        r, p = run_pairs(table[CONTROL].to_numpy(), table[names].to_numpy())
        ia, ib = np.triu_indices(len(names), 1)
        out[run] = {"a": [names[i] for i in ia], "b": [names[i] for i in ib], "r": r.tolist(), "p": p.tolist(),
                    "p_adjusted": holm(p).tolist()}
    json.dump({"runs": out}, sys.stdout)


if __name__ == "__main__":
    main()
