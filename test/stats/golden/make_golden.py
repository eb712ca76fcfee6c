#!/usr/bin/python3
"""Golden values for test/stats: correlation, partial correlation and p-value corrections.

Run with Debian's Python (it has numpy, scipy, statsmodels):
    /usr/bin/python3 test/stats/golden/make_golden.py
Writes test/stats/golden/correlation.json and corrections.json beside this script.

References reproduced here:
- scipy.stats.pearsonr / spearmanr / rankdata(method='average').
- pingouin.partial_corr (pingouin is not installed here, so its formulas are written out in numpy):
  data ranked first for Spearman (x, y and covariates); V = cov(data); Vi = pinv(V, hermitian=True);
  D = diag(sqrt(1/diag(Vi))); pcor = -D Vi D; r = pcor[0, 1]; dof = n - k - 2;
  t = r sqrt(dof / (1 - r^2)); p = 2 t.sf(|t|, dof); CI = compute_esci(r, nx = n - k) =
  tanh(atanh(r) -+ norm.ppf(0.975) / sqrt(n - k - 3)), here unrounded.
  Cross-checked against residuals from statsmodels OLS on [1, covariates] (same r to 1e-12).
- statsmodels.stats.multitest.multipletests with bonferroni, holm, fdr_bh, fdr_by.
"""
import json
import os

import numpy as np
import scipy
import statsmodels
import statsmodels.api as sm
from scipy import stats
from statsmodels.stats.multitest import multipletests

HERE = os.path.dirname(os.path.abspath(__file__))


def pingouin_partial(x, y, covs, method):
    data = np.column_stack([x, y] + list(covs))
    if method == "spearman":
        data = np.column_stack([stats.rankdata(c, method="average") for c in data.T])
    n, cols = data.shape
    k = cols - 2
    V = np.cov(data, rowvar=False)
    Vi = np.linalg.pinv(V, hermitian=True)
    D = np.diag(np.sqrt(1 / np.diag(Vi)))
    pcor = -1 * (D @ Vi @ D)
    r = float(pcor[0, 1])
    # cross-check with OLS residuals
    X = sm.add_constant(data[:, 2:], has_constant="add")
    rx = sm.OLS(data[:, 0], X).fit().resid
    ry = sm.OLS(data[:, 1], X).fit().resid
    r_ols = stats.pearsonr(rx, ry)[0]
    assert abs(r - r_ols) < 1e-12, (r, r_ols)
    dof = n - k - 2
    tval = r * np.sqrt(dof / (1 - r ** 2))
    p = float(2 * stats.t.sf(abs(tval), dof))
    z = np.arctanh(r)
    crit = stats.norm.ppf(0.975)
    se = 1 / np.sqrt(n - k - 3)
    ci = [float(np.tanh(z - crit * se)), float(np.tanh(z + crit * se))]
    return {"n": int(n), "r": r, "df": int(dof), "p": p, "ci95": ci}


def correlated(rng, n, k, rho, ties=None):
    """x, y depending on k covariates (curved in the first) plus correlated noise."""
    covs = [np.cumsum(rng.normal(size=n)) for _ in range(k)]
    e = rng.multivariate_normal([0, 0], [[1, rho], [rho, 1]], size=n)
    base = sum(0.5 * c for c in covs) if k else 0
    x = base + 0.1 * (covs[0] ** 2 if k else 0) + e[:, 0]
    y = base - 0.3 * (covs[-1] if k else 0) + e[:, 1]
    if ties is not None:
        x, y = np.round(x, ties), np.round(y, ties)
        covs = [np.round(c, ties) for c in covs]
    return x, y, covs


def main():
    rng = np.random.RandomState(20261130)
    corr_cases = []
    for name, n, rho, ties in [("n10", 10, 0.5, None), ("n50_neg", 50, -0.7, None),
                               ("ties", 30, 0.4, 0), ("n1000", 1000, 0.3, None)]:
        x, y, _ = correlated(rng, n, 0, rho, ties)
        corr_cases.append({
            "name": name, "x": x.tolist(), "y": y.tolist(),
            "pearson": float(stats.pearsonr(x, y)[0]),
            "spearman": float(stats.spearmanr(x, y)[0]),
            "rank_x": stats.rankdata(x, method="average").tolist(),
        })
    partial_cases = []
    for name, n, k, rho, ties in [("n20_k1", 20, 1, 0.6, None), ("n50_k2", 50, 2, -0.4, None),
                                  ("n10_k3", 10, 3, 0.3, None), ("ties_k1", 30, 1, 0.5, 1),
                                  ("n200_k1_strong", 200, 1, 0.85, None), ("n7_k3", 7, 3, 0.2, None)]:
        x, y, covs = correlated(rng, n, k, rho, ties)
        case = {"name": name, "x": x.tolist(), "y": y.tolist(), "covariates": [c.tolist() for c in covs]}
        for method in ("pearson", "spearman"):
            case[method] = pingouin_partial(x, y, covs, method)
        partial_cases.append(case)
    with open(os.path.join(HERE, "correlation.json"), "w") as f:
        json.dump({"made_by": "make_golden.py", "versions": {"numpy": np.__version__, "scipy": scipy.__version__,
                   "statsmodels": statsmodels.__version__}, "correlation": corr_cases, "partial": partial_cases}, f, indent=1)

    corr = []
    vectors = {
        "single": [0.03],
        "ten": rng.uniform(0, 0.2, size=10).tolist(),
        "ties_and_ones": [0.01, 0.04, 0.04, 0.2, 0.5, 0.5, 0.9, 1.0, 0.001, 0.04],
        "tiny": [1e-12, 3e-9, 2e-5, 0.3, 0.04, 1e-300],
        "forty_five": np.concatenate([rng.uniform(0, 0.01, 10), rng.uniform(0, 1, 35)]).tolist(),
    }
    sm_names = {"bonferroni": "bonferroni", "holm": "holm", "bh": "fdr_bh", "by": "fdr_by"}
    for name, p in vectors.items():
        entry = {"name": name, "p": p}
        for ours, theirs in sm_names.items():
            entry[ours] = multipletests(np.array(p), alpha=0.05, method=theirs)[1].tolist()
        corr.append(entry)
    with open(os.path.join(HERE, "corrections.json"), "w") as f:
        json.dump({"made_by": "make_golden.py", "versions": {"statsmodels": statsmodels.__version__},
                   "cases": corr}, f, indent=1)


if __name__ == "__main__":
    main()
