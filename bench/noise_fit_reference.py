"""The noise-model fits of a default analysis, made by numpy: a lower bound of a Python default's time.

bench/noise-fit-workload.ts writes every fit genstudy's default analysis makes (the residual series,
the regression columns [1, control], the checkpoints, the axes) and the model genstudy fitted. This
script makes the same fits by the same REML search (src/stats/noise-model.ts: the (theta, nugget)
grid, then two rounds of coordinate-wise golden-section refinement of 30 steps each, on the step
and the log-step axis, the better kept), vectorised the way numpy is fast:
- the grid: the Kalman filter of each grid point depends only on the checkpoints, so it is computed
  once per schedule; the whitened series' sum of squares runs as one recursion over the checkpoints
  for all grid points x all series at once (chunks of series), and the cross products with the
  whitened columns are matrix products (the columns' whitening transposed, by the adjoint recursion);
- the golden-section refinement: every series' search advances in lockstep, each objective
  evaluation one recursion over the checkpoints for all series at once.
Only the fits are made: no residualisers, no tests, no calibration draws, no meta-analysis. A Python
twin of the default analysis makes all of these fits and more, so its CPU time is at least this.

python3 noise_fit_reference.py <stem>  (reads <stem>.json and <stem>.bin) prints JSON: the fits made,
the CPU seconds of the fitting alone, and how far the fits are from genstudy's (theta and nugget on
the axis both chose, and the restricted log-likelihood).
"""
import json
import math
import os
import sys
import time

import numpy as np

MAX_PHI = 0.99
MIN_THETA = 1e-3
MAX_THETA = -1 / math.log(MAX_PHI)
THETA_GRID = 28
NUGGET_GRID = np.array([0, 0.1, 0.2, 0.35, 0.5, 0.65, 0.8, 0.9, 0.97])
RATIO = (math.sqrt(5) - 1) / 2
# Block sizes, each the fastest of those tried at 30 x 20 x 200 (21,000 fits of 200 checkpoints):
# series per grid recursion (256, 1024), calls whose columns are whitened together (1, 16), series
# refined in lockstep (1,024-32,768; larger blocks mean fewer numpy calls per series).
CHUNK = 1024
CALLS = 16
SEARCH_BLOCK = int(os.environ.get('GENSTUDY_FITS_SEARCH_BLOCK', 32768))


def grid_thetas():
    lo, hi = math.log(MIN_THETA), math.log(MAX_THETA)
    return np.array([math.exp(lo + (hi - lo) * i / THETA_GRID) for i in range(THETA_GRID + 1)])


def axis_times(steps, axis):
    steps = np.asarray(steps, dtype=float)
    if axis == 'log-step':
        gaps = np.diff(steps)
        positive = gaps[gaps > 0]
        g1 = positive.min() if positive.size else 1.0
        steps = np.log(steps - steps[0] + g1)
    g0 = np.median(np.diff(steps)) if steps.size > 1 else 1.0
    return (steps - steps[0]) / (g0 if g0 > 0 else 1.0)


def grid_filters(u):
    """The filter at every grid point (white noise first, then theta-major, nugget-minor): a, k, sd (G x n), logdet (G)."""
    thetas = np.concatenate([[0.0], np.repeat(grid_thetas(), NUGGET_GRID.size)])
    nuggets = np.concatenate([[1.0], np.tile(NUGGET_GRID, THETA_GRID + 1)])
    n, g = u.size, thetas.size
    a = np.zeros((g, n))
    with np.errstate(divide='ignore'):
        inv = np.where(thetas > 0, 1 / np.where(thetas > 0, thetas, 1), 0)
    a[:, 1:] = np.where(thetas[:, None] > 0, np.exp(-np.diff(u)[None, :] * inv[:, None]), 0)
    k, sd = np.empty((g, n)), np.empty((g, n))
    drift = 1 - nuggets
    p = drift.copy()
    logdet = np.zeros(g)
    for i in range(n):
        if i > 0:
            p = a[:, i] ** 2 * p + drift * (1 - a[:, i] ** 2)
        f = np.maximum(p + nuggets, 1e-12)
        sd[:, i] = np.sqrt(f)
        k[:, i] = p / f
        logdet += np.log(f)
        p = p * (1 - p / f)
    return thetas, nuggets, a, k, sd, logdet


def whiten_rows(v, a, k, sd):
    """V^-1/2 v for columns v (C x n) under every grid point's filter: G x C x n."""
    g, n = a.shape
    z, m = np.empty((g, v.shape[0], n)), np.zeros((g, v.shape[0]))
    for i in range(n):
        pred = a[:, i:i + 1] * m
        nu = v[None, :, i] - pred
        z[:, :, i] = nu / sd[:, i:i + 1]
        m = pred + k[:, i:i + 1] * nu
    return z


def adjoint(y, a, k, sd):
    """c (G x C x n) with c[g, j] . e = y[g, j] . (V_g^-1/2 e) for every e: the whitening's transpose applied to y."""
    g, n = a.shape
    c, lam = np.empty_like(y), np.zeros(y.shape[:2])
    for i in range(n - 1, -1, -1):
        c[:, :, i] = y[:, :, i] / sd[:, i:i + 1] + k[:, i:i + 1] * lam
        lam = -y[:, :, i] * (a[:, i:i + 1] / sd[:, i:i + 1]) + (a[:, i:i + 1] * (1 - k[:, i:i + 1])) * lam
    return c


def grid_values(series, calls_of, xs, filters):
    """-2 REML at every grid point for every series: S x G (the calls' columns whitened CALLS at a time)."""
    _, _, a, k, sd, logdet = filters
    g, n = a.shape
    out = np.empty((series.shape[0], g))
    ee = sum_of_squares(series, a, k, sd)
    for first in range(0, len(xs), CALLS):
        block = np.stack(xs[first:first + CALLS])
        z0, z1 = whiten_rows(block[:, 0], a, k, sd), whiten_rows(block[:, 1], a, k, sd)
        g00, g10, g11 = (z0 * z0).sum(2), (z1 * z0).sum(2), (z1 * z1).sum(2)
        r00 = np.sqrt(g00)
        r01 = g10 / r00
        r11 = np.sqrt(g11 - r01 * r01)
        c0, c1 = adjoint(z0, a, k, sd), adjoint(z1, a, k, sd)
        for j in range(block.shape[0]):
            rows = np.nonzero(calls_of == first + j)[0]
            if rows.size == 0:
                continue
            e = series[rows]
            w0 = (c0[:, j] @ e.T) / r00[:, j:j + 1]
            w1 = (c1[:, j] @ e.T - r01[:, j:j + 1] * w0) / r11[:, j:j + 1]
            q = ee[:, rows] - (w0 * w0 + w1 * w1)
            with np.errstate(invalid='ignore', divide='ignore'):
                v = (logdet + 2 * np.log(r00[:, j]) + 2 * np.log(r11[:, j]))[:, None] + (n - 2) * np.log(q)
            out[rows] = np.where(q > 0, v, np.inf).T
    return out


def sum_of_squares(e, a, k, sd):
    """|V_g^-1/2 e_s|^2 for every grid point g and series s: G x S, CHUNK series at a time (the filter is the schedule's)."""
    g, n = a.shape
    out = np.empty((g, e.shape[0]))
    for lo in range(0, e.shape[0], CHUNK):
        block = e[lo:lo + CHUNK]
        m = np.zeros((g, block.shape[0]))
        ee = np.zeros_like(m)
        nu, z = np.empty_like(m), np.empty_like(m)
        for i in range(n):
            np.multiply(a[:, i:i + 1], m, out=m)
            np.subtract(block[:, i][None, :], m, out=nu)
            np.divide(nu, sd[:, i:i + 1], out=z)
            ee += z * z
            m += k[:, i:i + 1] * nu
        out[:, lo:lo + block.shape[0]] = ee
    return out


def objective(theta, nugget, e, x0, x1, du):
    """-2 REML at one (theta, nugget) per series (S), all series at once: noise-model.ts's objective.

    e, x0 and x1 are n x S (a checkpoint's values of every series contiguous); the recursion's
    temporaries are written in place.
    """
    n, s = e.shape
    with np.errstate(divide='ignore'):
        a = np.exp(-du[:, None] / np.where(theta > 0, theta, 1)[None, :])
    a[:, theta <= 0] = 0
    drift = 1 - nugget
    pv = drift.copy()
    logdet = np.zeros(s)
    me, m0, m1 = np.zeros(s), np.zeros(s), np.zeros(s)
    ee, w0, w1, g00, g10, g11 = (np.zeros(s) for _ in range(6))
    fi, sd, kk, t, nu, z, z0, z1 = (np.empty(s) for _ in range(8))
    for i in range(n):
        if i > 0:
            ai = a[i - 1]
            np.multiply(ai, ai, out=t)
            pv *= t
            np.subtract(1, t, out=t)
            t *= drift
            pv += t
            me *= ai
            m0 *= ai
            m1 *= ai
        np.add(pv, nugget, out=fi)
        np.maximum(fi, 1e-12, out=fi)
        np.sqrt(fi, out=sd)
        np.divide(pv, fi, out=kk)
        logdet += np.log(fi, out=t)
        np.subtract(1, kk, out=t)
        pv *= t
        for m, v, out in ((me, e[i], z), (m0, x0[i], z0), (m1, x1[i], z1)):
            np.subtract(v, m, out=nu)
            np.divide(nu, sd, out=out)
            nu *= kk
            m += nu
        ee += np.multiply(z, z, out=t)
        w0 += np.multiply(z0, z, out=t)
        w1 += np.multiply(z1, z, out=t)
        g00 += np.multiply(z0, z0, out=t)
        g10 += np.multiply(z1, z0, out=t)
        g11 += np.multiply(z1, z1, out=t)
    with np.errstate(invalid='ignore', divide='ignore'):
        r00 = np.sqrt(g00)
        r01 = g10 / r00
        r11 = np.sqrt(g11 - r01 * r01)
        w0 = w0 / r00
        w1 = (w1 - r01 * w0) / r11
        q = ee - (w0 * w0 + w1 * w1)
        v = logdet + 2 * np.log(r00) + 2 * np.log(r11) + (n - 2) * np.log(q)
    return np.where(q > 0, v, np.inf)


def golden(f, lo, hi, start):
    """goldenMin of noise-model.ts for every series in lockstep: f maps an array of points to values."""
    left, right = lo.copy(), hi.copy()
    c, d = right - RATIO * (right - left), left + RATIO * (right - left)
    fc, fd = f(c), f(d)
    for _ in range(30):
        go_left = fc < fd
        right = np.where(go_left, d, right)
        left = np.where(go_left, left, c)
        point = np.where(go_left, right - RATIO * (right - left), left + RATIO * (right - left))
        fp = f(point)
        c, fc, d, fd = (np.where(go_left, point, d), np.where(go_left, fp, fd),
                        np.where(go_left, c, point), np.where(go_left, fc, fp))
    mid = (left + right) / 2
    return np.where(f(mid) <= f(start), mid, start)


def search(values, e, x0, x1, du, thetas, nuggets):
    """searchReml of noise-model.ts for every series: theta, nugget and -2 REML (S each)."""
    s = e.shape[0]
    best = np.full(s, 0)
    best_value = values[:, 0].copy()
    for g in range(1, values.shape[1]):
        better = values[:, g] < best_value - 1e-12
        best = np.where(better, g, best)
        best_value = np.where(better, values[:, g], best_value)
    theta, nugget = thetas[best].copy(), nuggets[best].copy()
    # the refinement in blocks of series, which bound the n x block arrays of one evaluation
    for lo_block in range(0, s, SEARCH_BLOCK):
        refine = lo_block + np.nonzero(best[lo_block:lo_block + SEARCH_BLOCK] > 0)[0]
        if refine.size == 0:
            continue
        lo, hi = math.log(MIN_THETA), math.log(MAX_THETA)
        bi = (best[refine] - 1) // NUGGET_GRID.size
        t_lo = lo + (hi - lo) * np.maximum(0, bi - 1) / THETA_GRID
        t_hi = lo + (hi - lo) * np.minimum(THETA_GRID, bi + 1) / THETA_GRID
        er, x0r, x1r = e[refine].T.copy(), x0[refine].T.copy(), x1[refine].T.copy()
        log_theta, w = np.log(theta[refine]), nugget[refine]
        for _ in range(2):
            log_theta = golden(lambda t: objective(np.exp(t), w, er, x0r, x1r, du), t_lo, t_hi, log_theta)
            w = golden(lambda v: objective(np.exp(log_theta), v, er, x0r, x1r, du),
                       np.maximum(0, w - 0.15), np.minimum(0.995, w + 0.15), w)
        refined = objective(np.exp(log_theta), w, er, x0r, x1r, du)
        better = refined < best_value[refine]
        keep = refine[better]
        theta[keep], nugget[keep], best_value[keep] = np.exp(log_theta[better]), w[better], refined[better]
    return theta, nugget, best_value


def fit_group(calls, data):
    """Every fit of calls sharing checkpoints and axes: theta, nugget, axis index, logLik (S each)."""
    first = calls[0]
    n = first['n']
    steps = data[first['steps']:first['steps'] + n]
    e = np.concatenate([data[c['series']:c['series'] + c['count'] * n].reshape(c['count'], n) for c in calls])
    calls_of = np.concatenate([np.full(c['count'], j) for j, c in enumerate(calls)])
    xs = [data[c['x']:c['x'] + 2 * n].reshape(2, n) for c in calls]
    columns = np.stack(xs)
    x0, x1 = columns[calls_of, 0], columns[calls_of, 1]
    best = None
    for index, axis in enumerate(first['axes']):
        u = axis_times(steps, axis)
        filters = grid_filters(u)
        values = grid_values(e, calls_of, xs, filters)
        theta, nugget, value = search(values, e, x0, x1, np.diff(u), filters[0], filters[1])
        fit = (theta, nugget, np.full(theta.size, index), -0.5 * value)
        if best is None:
            best = fit
        else:
            take = fit[3] > best[3] + 1e-9
            best = tuple(np.where(take, new, old) for new, old in zip(fit, best))
    return best


def main():
    stem = sys.argv[1]
    index = json.load(open(f'{stem}.json'))
    data = np.fromfile(f'{stem}.bin', dtype='<f8')
    calls = index['calls']
    if any(c['p'] != 2 for c in calls):
        sys.exit('only the two columns [1, control] are fitted here')
    groups = {}
    for c in calls:
        key = (tuple(data[c['steps']:c['steps'] + c['n']]), tuple(c['axes']))
        groups.setdefault(key, []).append(c)
    started = time.process_time()
    fits = [fit_group(g, data) for g in groups.values()]
    cpu = time.process_time() - started
    width = index['model_width']
    theirs = np.concatenate([data[c['models']:c['models'] + c['count'] * width].reshape(c['count'], width)
                             for g in groups.values() for c in g])
    theta, nugget, axis, loglik = (np.concatenate([f[i] for f in fits]) for i in range(4))
    same_axis = axis == theirs[:, 2]
    rel = lambda ours, ref: np.abs(ours - ref) / np.maximum(np.abs(ref), 1e-300)
    json.dump({
        'fits': int(theta.size), 'schedules': len(groups), 'fit_cpu_s': cpu,
        'same_axis_share': float(same_axis.mean()),
        'max_rel_theta_diff': float(rel(theta, theirs[:, 0])[same_axis].max(initial=0)),
        'max_abs_nugget_diff': float(np.abs(nugget - theirs[:, 1])[same_axis].max(initial=0)),
        'max_abs_loglik_diff': float(np.abs(loglik - theirs[:, 4]).max(initial=0)),
        'median_rel_theta_diff': float(np.median(rel(theta, theirs[:, 0])[same_axis])) if same_axis.any() else 0.0,
    }, sys.stdout)
    print()


if __name__ == '__main__':
    main()
