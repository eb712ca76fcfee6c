#!/usr/bin/python3
"""numpy/scipy reference for bench/stats.ts: the same all-pairs partial correlation analysis.

Usage: /usr/bin/python3 bench/stats_reference.py DATA.f64 RUNS SERIES STEPS
DATA.f64 holds float64 values, run-major; per run the control (in-domain) series then SERIES test
sets. For each run: residualise every test set on the control once, correlate all pairs of
residuals (np.corrcoef), then df, t-test p-values (scipy.stats.t.sf) and Fisher-z CIs, as
pingouin.partial_corr does per pair, but vectorised over the run's pairs:
  pearson_linear  : residuals from QR least squares on [1, control]
  spearman_linear : the same on scipy.stats.rankdata ranks (series and control)
  pearson_spline  : mgcv-style cubic regression spline (k = 10, sum-to-zero constraint), smoothing
                    parameter by GCV (grid over log lambda + bisection on the derivative, vectorised
                    over series), edf replaces k, the larger of each pair's two edf is used.
Prints JSON: {config: {ms, cpu_ms, r_sum, p_sum}}: medians of 5 timed passes over all runs after a
warm-up pass (wall and process CPU time).
"""
import json
import sys
import time

import numpy as np
from scipy import linalg, stats

Z975 = stats.norm.ppf(0.975)


def finish(r, n, k):
    df = n - 2 - k
    t = r * np.sqrt(df / (1 - r ** 2))
    p = 2 * stats.t.sf(np.abs(t), df)
    z = np.arctanh(r)
    half = Z975 / np.sqrt(n - k - 3)
    ci = np.stack([np.tanh(z - half), np.tanh(z + half)])
    return p, ci


def pairs_of(res):
    c = np.corrcoef(res, rowvar=False)
    iu = np.triu_indices(res.shape[1], 1)
    return c[iu], iu


def linear(control, data):
    n = len(control)
    X = np.column_stack([np.ones(n), control])
    Q, _ = np.linalg.qr(X)
    res = data - Q @ (Q.T @ data)
    r, _ = pairs_of(res)
    p, _ = finish(r, n, 1)
    return r, p


def spearman_linear(control, data):
    return linear(stats.rankdata(control), stats.rankdata(data, axis=0))


def place_knots(x, k):
    u = np.unique(x)
    n = len(u)
    knots = np.empty(k)
    knots[0], knots[-1] = u[0], u[-1]
    delta = (n - 1) / (k - 1)
    i = np.arange(1, k - 1)
    lbi = np.floor(delta * i).astype(int) + 1
    frac = delta * i + 1 - lbi
    knots[1:-1] = u[lbi - 1] * (1 - frac) + u[lbi] * frac
    return knots


def cr_basis(z, knots):
    k = len(knots)
    h = np.diff(knots)
    D = np.zeros((k - 2, k))
    B = np.zeros((k - 2, k - 2))
    for i in range(k - 2):
        D[i, i], D[i, i + 1], D[i, i + 2] = 1 / h[i], -1 / h[i] - 1 / h[i + 1], 1 / h[i + 1]
        B[i, i] = (h[i] + h[i + 1]) / 3
        if i < k - 3:
            B[i, i + 1] = B[i + 1, i] = h[i + 1] / 6
    BiD = np.linalg.solve(B, D)
    F = np.vstack([np.zeros(k), BiD, np.zeros(k)])
    S = D.T @ BiD
    j = np.clip(np.searchsorted(knots, z, side="right") - 1, 0, k - 2)
    hj = h[j]
    right, left = knots[j + 1] - z, z - knots[j]
    X = np.zeros((len(z), k))
    rows = np.arange(len(z))
    X[rows, j] += right / hj
    X[rows, j + 1] += left / hj
    cm = (right ** 3 / hj - hj * right) / 6
    cp = (left ** 3 / hj - hj * left) / 6
    X += cm[:, None] * F[j] + cp[:, None] * F[j + 1]
    return X, S


def spline(control, data, k=10):
    n = len(control)
    X, S = cr_basis(control, place_knots(control, k))
    q, _ = np.linalg.qr(X.sum(0)[:, None], mode="complete")
    Z = q[:, 1:]
    Q, R = np.linalg.qr(X @ Z)
    Ri = linalg.solve_triangular(R, np.eye(k - 1))
    M = Ri.T @ (Z.T @ S @ Z) @ Ri
    L, U = np.linalg.eigh((M + M.T) / 2)
    L = np.where(L > 1e-11 * L.max(), L, 0.0)
    G = Q @ U
    Y0 = data - data.mean(0)
    b = G.T @ Y0                      # p x m
    b2 = b ** 2
    rss0 = np.maximum((Y0 ** 2).sum(0) - b2.sum(0), 0)
    pos = L[L > 0]
    rhos = np.linspace(-np.log(L.max()) - 12, -np.log(pos.min()) + 12,
                       int(np.ceil(((-np.log(pos.min()) + 12) - (-np.log(L.max()) - 12)) / 0.2)) + 1)

    def parts(lam):                   # lam: shape (..., m)
        W = 1 / (1 + lam[..., None, :] * L[:, None])
        edf = W.sum(-2)
        rss = rss0 + (b2 * (1 - W) ** 2).sum(-2)
        return W, edf, rss

    _, edf, rss = parts(np.exp(rhos)[:, None] * np.ones(b.shape[1]))
    d = n - 1 - edf
    V = np.where(d > 0, n * rss / np.where(d > 0, d, 1) ** 2, np.inf)
    best = V.argmin(0)
    step = rhos[1] - rhos[0]
    lo, hi = rhos[best] - step, rhos[best] + step

    def slope(rho):
        W, edf, rss = parts(np.exp(rho))
        drss = (2 * b2 * W * (1 - W) ** 2).sum(0)
        ddelta = (W * (1 - W)).sum(0)
        return drss * (n - 1 - edf) - 2 * rss * ddelta

    ok = (best > 0) & (best < len(rhos) - 1) & (slope(lo) < 0) & (slope(hi) > 0)
    for _ in range(60):
        mid = (lo + hi) / 2
        neg = slope(mid) < 0
        lo, hi = np.where(neg, mid, lo), np.where(neg, hi, mid)
    rho = np.where(ok, (lo + hi) / 2, rhos[best])
    W, edf, rss = parts(np.exp(rho))
    Vbest = n * rss / (n - 1 - edf) ** 2
    Winf = (L == 0).astype(float)[:, None] * np.ones(b.shape[1])
    edf_inf = Winf.sum(0)
    V_inf = n * (rss0 + (b2 * (1 - Winf) ** 2).sum(0)) / (n - 1 - edf_inf) ** 2
    use_inf = V_inf <= Vbest
    W = np.where(use_inf, Winf, W)
    edf = W.sum(0)
    res = Y0 - G @ (W * b)
    r, iu = pairs_of(res)
    kk = np.maximum(edf[iu[0]], edf[iu[1]])
    p, _ = finish(r, n, kk)
    return r, p


CONFIGS = {"pearson_linear": linear, "spearman_linear": spearman_linear, "pearson_spline": spline}


def main():
    path, runs, series, steps = sys.argv[1], *map(int, sys.argv[2:5])
    data = np.fromfile(path, dtype=np.float64).reshape(runs, series + 1, steps)
    out = {}
    for name, fn in CONFIGS.items():
        times, cpu = [], []
        for rep in range(6):
            t0, c0 = time.perf_counter(), time.process_time()
            r_sum = p_sum = 0.0
            for run in data:
                r, p = fn(run[0], run[1:].T)
                r_sum += r.sum()
                p_sum += p.sum()
            if rep > 0:
                times.append((time.perf_counter() - t0) * 1000)
                cpu.append((time.process_time() - c0) * 1000)
        out[name] = {"ms": float(np.median(times)), "cpu_ms": float(np.median(cpu)), "r_sum": float(r_sum), "p_sum": float(p_sum)}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
