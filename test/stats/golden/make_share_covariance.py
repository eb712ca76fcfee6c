"""Golden values for src/stats/example-covariance.ts (shareCovariance).

Each checkpoint's score is the mean of its n examples' 0/1 results on the same examples; the
covariance of two checkpoints' means is the covariance of the per-example results over the
examples (numpy's np.cov with bias=True: divided by n) divided by n again (the variance of a mean).
Run: python3 test/stats/golden/make_share_covariance.py > test/stats/golden/share-covariance.json
"""
import json
import numpy as np

rng = np.random.default_rng(20261203)
cases = []
for c, n, keep in [(3, 7, 0.5), (6, 40, 0.9), (12, 250, 0.95)]:
    right = [rng.random(n) < 0.6]
    for _ in range(c - 1):
        moved = rng.random(n) > keep
        right.append(np.where(moved, rng.random(n) < 0.7, right[-1]))
    X = np.array(right, dtype=float)
    cov = np.cov(X, bias=True) / n
    cases.append({"right": X.astype(int).tolist(), "covariance": cov.ravel().tolist()})
print(json.dumps({"generator": "make_share_covariance.py (numpy " + np.__version__ + ")", "cases": cases}))
