#!/usr/bin/python3
"""Golden values for test/stats/autocorrelation.test.ts: the sample autocorrelation and the
effective-n test's ingredients, from statsmodels.

Run with Debian's Python (apt-get install python3-statsmodels):
    /usr/bin/python3 test/stats/golden/make_acf_golden.py
Writes test/stats/golden/acf.json beside this script.

References reproduced here:
- statsmodels.tsa.stattools.acf(x, nlags, adjusted=False, fft=False): divisor n at every lag.
- the residuals of statsmodels OLS(y, add_constant(c)).resid, their lag-1 acf r1, the bias-corrected
  phi = clip(r1 + (1 + 3 r1)/n, -0.99, 0.99) and Bartlett's n_eff = n (1 - q)/(1 + q),
  q = max(phi_x phi_y, 0), with df = n_eff - 3 and p = 2 scipy.stats.t.sf(|t|, df).
"""
import json
import os

import numpy as np
import scipy
import statsmodels
import statsmodels.api as sm
from scipy import stats
from statsmodels.tsa.stattools import acf

HERE = os.path.dirname(os.path.abspath(__file__))


def ar1(rng, n, phi):
    e = rng.standard_normal(n)
    out = np.empty(n)
    out[0] = e[0] / np.sqrt(1 - phi ** 2)
    for t in range(1, n):
        out[t] = phi * out[t - 1] + e[t]
    return out


def main():
    rng = np.random.default_rng(20261130)
    acf_cases = []
    for name, n, phi, nlags in [("white_n12", 12, 0.0, 5), ("ar05_n30", 30, 0.5, 10), ("ar09_n50", 50, 0.9, 20)]:
        x = ar1(rng, n, phi)
        acf_cases.append({"name": name, "x": x.tolist(), "nlags": nlags,
                          "acf": acf(x, nlags=nlags, adjusted=False, fft=False).tolist()})
    effective = []
    for name, n, phi in [("n25_phi06", 25, 0.6), ("n40_phi08", 40, 0.8), ("n15_phi00", 15, 0.0)]:
        c = np.linspace(0, 1, n) ** 0.5 + 0.05 * rng.standard_normal(n)
        x = 0.7 * c + 0.1 * ar1(rng, n, phi)
        y = -0.2 * c + 0.1 * ar1(rng, n, phi)
        X = sm.add_constant(c)
        ex, ey = sm.OLS(x, X).fit().resid, sm.OLS(y, X).fit().resid
        r1 = [acf(e, nlags=1, adjusted=False, fft=False)[1] for e in (ex, ey)]
        phis = [float(np.clip(r + (1 + 3 * r) / n, -0.99, 0.99)) for r in r1]
        q = max(phis[0] * phis[1], 0)
        neff = min(n * (1 - q) / (1 + q), n)
        r = float(np.corrcoef(ex, ey)[0, 1])
        df = neff - 3
        p = float(2 * stats.t.sf(abs(r * np.sqrt(df / (1 - r * r))), df)) if df > 0 else None
        effective.append({"name": name, "x": x.tolist(), "y": y.tolist(), "c": c.tolist(),
                          "phi": phis, "nEff": neff, "r": r, "df": df, "p": p})
    out = {"versions": {"numpy": np.__version__, "scipy": scipy.__version__, "statsmodels": statsmodels.__version__},
           "acf": acf_cases, "effective": effective}
    with open(os.path.join(HERE, "acf.json"), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
