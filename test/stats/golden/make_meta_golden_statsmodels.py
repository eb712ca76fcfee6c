#!/usr/bin/env python3
"""Second reference for the random-effects meta-analysis: statsmodels' combine_effects.

Debian's python has no statsmodels; use a venv:
    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install statsmodels
    /tmp/venv/bin/python test/stats/golden/make_meta_golden_statsmodels.py
It reads the same inputs as the metafor golden file (meta.json, from make_meta_golden.R) and writes
meta_statsmodels.json beside this script (made with statsmodels 0.15).

statsmodels.stats.meta_analysis.combine_effects covers two of genstudy's estimators:
- method_re="dl" (DerSimonian-Laird). statsmodels does NOT truncate tau^2 at 0, so the test
  compares only cases where its tau^2 is >= 0. Its I^2 is (Q - df) / Q, which equals metafor's
  (and genstudy's) tau^2 / (tau^2 + typical variance) for DL only.
- method_re="iterated" (Paule-Mandel, DerSimonian & Kacker 2007), run here with atol=1e-10 on its
  estimating equation (default 1e-5) so it converges (a tighter atol makes it overshoot the root
  by rounding, and it then returns tau^2 = 0). Its update can overshoot the root on the first
  step too, and then it stops at tau^2 = 0 unconverged (case molloy); such fits are marked
  "converged": false (a stop at 0 because Q(0) <= k - 1 is the boundary solution and counts as
  converged).
Its "wls" interval (HKSJ) is the Hartung-Knapp interval: sd_eff_w_re_hksj with t(k - 1) quantiles.
"""
import json
import os

import numpy as np
import scipy.stats as stats
import statsmodels
from statsmodels.stats.meta_analysis import _fit_tau_iterative, combine_effects

HERE = os.path.dirname(os.path.abspath(__file__))


def num(x):
    """A float, or None where statsmodels gives NaN (its untruncated negative DL tau^2)."""
    x = float(x)
    return None if np.isnan(x) else x


def main():
    with open(os.path.join(HERE, "meta.json")) as f:
        golden = json.load(f)
    cases = []
    for case in golden["cases"]:
        y = np.asarray(case["yi"], dtype=float)
        v = np.asarray(case["vi"], dtype=float)
        k = len(y)
        fits = []
        for name, method, kwds in [("DL", "dl", {}), ("PM", "iterated", {"atol": 1e-10, "maxiter": 10000})]:
            res = combine_effects(y, v, method_re=method, **kwds)
            _, _, ci_re, ci_re_hksj = res.conf_int(alpha=0.05, use_t=True)
            # combine_effects drops the iteration's convergence flag; a step that overshoots the
            # root ends the iteration with tau^2 = 0, unconverged (molloy): such a fit is marked
            converged = True if method == "dl" else bool(_fit_tau_iterative(y, v, **kwds)[1])
            # tau^2 = 0 because Q(0) <= k - 1 is the right answer (the boundary), not a failure
            converged = converged or float(res.q) <= k - 1
            tcrit = stats.t.isf(0.025, k - 1)
            zcrit = stats.norm.isf(0.025)
            fits.append({
                "estimator": name,
                "converged": converged,
                "tau2": float(res.tau2),
                "estimate": float(res.mean_effect_re),
                "se": num(res.sd_eff_w_re),
                "ci": [num(res.mean_effect_re - zcrit * res.sd_eff_w_re), num(res.mean_effect_re + zcrit * res.sd_eff_w_re)],
                "se_hksj": num(res.sd_eff_w_re_hksj),
                "ci_hksj": [num(ci_re_hksj[0]), num(ci_re_hksj[1])],
                "t_crit": float(tcrit),
                "q": float(res.q),
                "i2": float(res.i2),
            })
        cases.append({"name": case["name"], "fits": fits})
    out = {"made_by": "make_meta_golden_statsmodels.py", "statsmodels": statsmodels.__version__, "cases": cases}
    with open(os.path.join(HERE, "meta_statsmodels.json"), "w") as f:
        json.dump(out, f, indent=1, allow_nan=False)
        f.write("\n")
    print("wrote meta_statsmodels.json")


if __name__ == "__main__":
    main()
