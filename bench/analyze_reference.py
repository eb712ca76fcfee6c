#!/usr/bin/python3
"""numpy/scipy reference for bench/analyze.ts: genstudy analyze's default inference on many runs.

Usage: /usr/bin/python3 bench/analyze_reference.py DATA.f64 RUNS SETS STEPS
DATA.f64 holds float64 values, run-major; per run the control (in-domain) series then SETS OOD sets.
Per run, vectorised over its pairs, the same test as src/stats/levels-or-differences.ts:
  levels: residuals of every OOD set on [1, control] (QR least squares), pair r from np.corrcoef;
          each residual series' lag-1 autocorrelation r1 (statsmodels acf, divisor n), corrected
          phi = clip(r1 + (1 + 3 r1)/n, -0.99, 0.99); Bartlett n_eff = n (1 - q)/(1 + q),
          q = max(phi_a phi_b, 0), capped at n and at the distinct (control, a, b) rows;
  differences: the same on np.diff of every series (n - 1 observations);
  per pair the representation with the larger n_eff; df = n_eff - 3; p = 2 t.sf(|t|, df);
then Holm over the run's pairs (statsmodels multipletests' 'holm') and the agreement counts
(significantly positive / negative at adjusted p < 0.05) across runs.
Prints JSON {ms, cpu_ms, p_sum, neff_sum, positive, negative}: medians of 5 timed passes after a warm-up.
"""
import json
import sys
import time

import numpy as np
from scipy import stats


def residuals(control, data):
    n = len(control)
    X = np.column_stack([np.ones(n), control])
    Q, _ = np.linalg.qr(X)
    return data - Q @ (Q.T @ data)


def distinct_rows(control, data, ia, ib):
    n = len(control)
    if len(np.unique(control)) == n:
        return np.full(len(ia), n)
    out = np.empty(len(ia))
    for k, (a, b) in enumerate(zip(ia, ib)):
        out[k] = len(np.unique(np.column_stack([control, data[:, a], data[:, b]]), axis=0))
    return out


def effective(control, data, ia, ib):
    n = len(control)
    e = residuals(control, data)
    e = e - e.mean(0)
    ss = (e ** 2).sum(0)
    r1 = (e[:-1] * e[1:]).sum(0) / ss
    phi = np.clip(r1 + (1 + 3 * r1) / n, -0.99, 0.99)
    r = np.corrcoef(e, rowvar=False)[ia, ib]
    q = np.maximum(phi[ia] * phi[ib], 0)
    neff = np.minimum(n * (1 - q) / (1 + q), distinct_rows(control, data, ia, ib))
    return r, neff


def run_pairs(control, data):
    m = data.shape[1]
    ia, ib = np.triu_indices(m, 1)
    r_l, n_l = effective(control, data, ia, ib)
    r_d, n_d = effective(np.diff(control), np.diff(data, axis=0), ia, ib)
    use_d = n_d > n_l
    r = np.where(use_d, r_d, r_l)
    neff = np.where(use_d, n_d, n_l)
    df = neff - 3
    ok = neff - 4 > 0
    dfs = np.where(ok, df, 1)
    t = r * np.sqrt(dfs / (1 - r ** 2))
    p = np.where(ok, 2 * stats.t.sf(np.abs(t), dfs), np.nan)
    return r, p, neff


def holm(p):
    out = np.full(len(p), np.nan)
    idx = np.where(~np.isnan(p))[0]
    if len(idx) == 0:
        return out
    q = p[idx]
    order = np.argsort(q, kind="stable")
    k = len(q)
    adj = np.minimum(1, np.maximum.accumulate(q[order] * (k - np.arange(k))))
    res = np.empty(k)
    res[order] = adj
    out[idx] = res
    return out


def analyse(data):
    p_sum = neff_sum = 0.0
    positive = negative = None
    for run in data:
        r, p, neff = run_pairs(run[0], run[1:].T)
        padj = holm(p)
        sig = np.where(np.isnan(padj), False, padj < 0.05)
        pos, neg = (sig & (r > 0)).astype(int), (sig & (r < 0)).astype(int)
        positive = pos if positive is None else positive + pos
        negative = neg if negative is None else negative + neg
        p_sum += np.nansum(p)
        neff_sum += neff.sum()
    return p_sum, neff_sum, int(positive.sum()), int(negative.sum())


def main():
    path, runs, sets, steps = sys.argv[1], *map(int, sys.argv[2:5])
    data = np.fromfile(path, dtype=np.float64).reshape(runs, sets + 1, steps)
    times, cpu = [], []
    for rep in range(6):
        t0, c0 = time.perf_counter(), time.process_time()
        p_sum, neff_sum, positive, negative = analyse(data)
        if rep > 0:
            times.append((time.perf_counter() - t0) * 1000)
            cpu.append((time.process_time() - c0) * 1000)
    print(json.dumps({"ms": float(np.median(times)), "cpu_ms": float(np.median(cpu)), "p_sum": float(p_sum),
                      "neff_sum": float(neff_sum), "positive": positive, "negative": negative}))


if __name__ == "__main__":
    main()
