#!/usr/bin/env python3
"""Reference values for the meta-analysis's 95% prediction interval (stats/meta-analysis.ts).

The interval of Higgins, Thompson & Spiegelhalter (2009, JRSS A 172) as Partlett & Riley
(2017, Stat Med 36) use it with REML and Hartung-Knapp's se: mu -+ t_.975,k-2 sqrt(se^2 + tau^2).
mu, se and tau^2 are metafor's own (meta.json, from make_meta_golden.R: rma's b, se and tau2, with
and without test = "knha"); the t quantile is scipy's. metafor's predict.rma, whose interval is in
meta.json as `pi`, uses k - 1 degrees of freedom with Hartung-Knapp and z without.

Debian's python has no scipy; use a venv:
    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install scipy
    /tmp/venv/bin/python test/stats/golden/make_prediction_interval.py
"""
import json
import os

import scipy
import scipy.stats as stats

HERE = os.path.dirname(os.path.abspath(__file__))

with open(os.path.join(HERE, "meta.json")) as f:
    meta = json.load(f)

cases = []
for case in meta["cases"]:
    k = len(case["yi"])
    if k < 3:
        continue
    crit = stats.t.ppf(0.975, k - 2)
    fits = []
    for fit in case["fits"]:
        half = crit * (fit["se"] ** 2 + fit["tau2"]) ** 0.5
        fits.append({
            "estimator": fit["estimator"], "hartung_knapp": fit["hartung_knapp"],
            "pi": [fit["estimate"] - half, fit["estimate"] + half],
        })
    cases.append({"name": case["name"], "fits": fits})

with open(os.path.join(HERE, "prediction-interval.json"), "w") as f:
    json.dump({"made_by": "make_prediction_interval.py", "scipy": scipy.__version__, "cases": cases}, f, indent=1)
    f.write("\n")
