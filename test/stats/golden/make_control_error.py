"""Golden values for src/stats/control-residuals.ts's method of moments (errors in the control).

The partial correlation of (a, b) given the TRUE control, estimated from the observed control c
with known per-checkpoint noise variances v: Fuller (1987, "Measurement Error Models", 1.2, 2.2)
corrects the moment matrix of (a, b, c) by taking U = (1 - 1/n) sum(v) off c's centred sum of
squares; the partial correlation is then read from the inverse of that corrected matrix
(-P_ab / sqrt(P_aa P_bb)), a different algorithm from genstudy's corrected-slope residuals.
Run: python3 test/stats/golden/make_control_error.py > test/stats/golden/control-error.json
"""
import json
import numpy as np

rng = np.random.default_rng(20261202)
cases = []
for case in range(6):
    n = [12, 20, 41, 30, 60, 25][case]
    n_test = [250, 1000, 5000, 250, 1000, 500][case]
    steps = np.arange(n)
    truth = 0.5 + 0.35 * (1 - np.exp(-4 * steps / n))
    c = rng.binomial(n_test, truth) / n_test
    a = 0.3 + 0.6 * truth + 0.02 * rng.standard_normal(n)
    b = 0.2 + 0.4 * truth + 0.02 * rng.standard_normal(n)
    v = c * (1 - c) / n_test
    X = np.vstack([a, b, c])
    S = np.cov(X, bias=True) * n  # centred sums of squares and products
    S_naive = S.copy()
    S[2, 2] -= (1 - 1 / n) * v.sum()
    P = np.linalg.inv(S)
    r = -P[0, 1] / np.sqrt(P[0, 0] * P[1, 1])
    Pn = np.linalg.inv(S_naive)
    r_naive = -Pn[0, 1] / np.sqrt(Pn[0, 0] * Pn[1, 1])
    cases.append({"a": a.tolist(), "b": b.tolist(), "c": c.tolist(), "v": v.tolist(), "r": float(r), "r_naive": float(r_naive),
                  "reliability": float((S_naive[2, 2] - (1 - 1 / n) * v.sum()) / S_naive[2, 2])})
print(json.dumps({"generator": "make_control_error.py (numpy " + np.__version__ + ")", "cases": cases}))
