// The lower bound of a Python default's time (`GENSTUDY_ANALYZE_SCALE_FITS=1 npm run bench --
// analyze-scale`) stands on two claims: the recorder writes the fits the default analysis makes, each
// with the model genstudy fitted, and the numpy side makes those fits by the same search.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { SIZES, writeScores } from '../../bench/analyze-scale.ts';
import { recordFits, type FitWorkload } from '../../bench/noise-fit-workload.ts';
import { fitNoiseModel } from '../../src/stats/noise-model.ts';

const PYTHON = '/usr/bin/python3';
const hasNumpy = spawnSync(PYTHON, ['-c', 'import numpy'], { stdio: 'ignore' }).status === 0;

test('the recorded fits are the analysis\'s own, and numpy\'s search finds the same models', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'genstudy-fit-workload-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const csv = join(dir, 'scores.csv'), stem = join(dir, 'fits');
  writeScores(csv, SIZES.find((s) => s.name === '3x7x25')!);
  const { fits } = await recordFits(csv, stem);
  const index = JSON.parse(readFileSync(`${stem}.json`, 'utf8')) as FitWorkload;
  const buf = readFileSync(`${stem}.bin`);
  const data = new Float64Array(buf.buffer, buf.byteOffset, buf.byteLength / 8);
  assert.equal(index.calls.reduce((s, c) => s + c.count, 0), fits);
  // 3 runs: each run's OOD series, the calibration's 600 simulated ones, the robustness table's
  assert.ok(fits > 3 * 600, `${fits} fits`);
  const analysis = JSON.parse(readFileSync(`${stem}.analysis.json`, 'utf8')) as { runs: unknown[] };
  assert.equal(analysis.runs.length, 3);
  let checked = 0;
  for (const c of index.calls) {
    const steps = data.slice(c.steps, c.steps + c.n);
    const x = Array.from({ length: c.p }, (_, j) => data.slice(c.x + j * c.n, c.x + (j + 1) * c.n));
    for (let s = 0; s < c.count; s += 3) {
      const model = fitNoiseModel(data.slice(c.series + s * c.n, c.series + (s + 1) * c.n), x, steps, c.axes);
      const [theta, nugget, axis, phi, logLik] = data.slice(c.models + s * index.model_width, c.models + (s + 1) * index.model_width);
      assert.deepEqual([theta, nugget, c.axes[axis], phi, logLik], [model.theta, model.nugget, model.axis, model.phi, model.logLik]);
      checked++;
    }
  }
  assert.ok(checked > 300, `${checked} fits checked`);
  if (!hasNumpy) {
    t.diagnostic(`${PYTHON} with numpy is absent: the numpy side is not checked`);
    return;
  }
  const ref = spawnSync(PYTHON, [resolve(import.meta.dirname, '../../bench/noise_fit_reference.py'), stem], { encoding: 'utf8' });
  assert.equal(ref.status, 0, ref.stderr);
  const agreement = JSON.parse(ref.stdout) as Record<string, number>;
  assert.equal(agreement.fits, fits);
  // the search ends where the objective's last bits decide, so numpy's rounding moves a few fits
  // along flat likelihoods; most are the same to the last bits, and none is another optimum
  assert.ok(agreement.same_axis_share > 0.99, JSON.stringify(agreement));
  assert.ok(agreement.median_rel_theta_diff < 1e-12, JSON.stringify(agreement));
  assert.ok(agreement.max_abs_loglik_diff < 1e-4, JSON.stringify(agreement));
});
