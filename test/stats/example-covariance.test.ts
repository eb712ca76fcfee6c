// shareCovariance against numpy (test/stats/golden/make_share_covariance.py): the covariance of the
// shares right of checkpoints scored on the same examples.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { shareCovariance } from '../../src/stats/example-covariance.ts';

const golden = JSON.parse(readFileSync(new URL('./golden/share-covariance.json', import.meta.url), 'utf8')) as {
  cases: { right: number[][]; covariance: number[] }[];
};

test('the covariance of shares right over the same examples equals numpy\'s np.cov(bias=True) / n', () => {
  for (const { right, covariance } of golden.cases) {
    const got = shareCovariance(right.map((r) => Uint8Array.from(r)));
    assert.equal(got.length, covariance.length);
    for (let i = 0; i < got.length; i++) assert.ok(Math.abs(got[i] - covariance[i]) < 1e-15, `entry ${i}: ${got[i]} vs ${covariance[i]}`);
  }
});

test('its diagonal is the stated p(1 - p)/n, and its off-diagonal the share right at both less the product, over n', () => {
  const right = [Uint8Array.from([1, 1, 0, 0]), Uint8Array.from([1, 0, 1, 0]), Uint8Array.from([1, 1, 1, 0])];
  const c = shareCovariance(right);
  assert.equal(c[0], (0.5 * 0.5) / 4);
  assert.equal(c[0 * 3 + 1], (0.25 - 0.5 * 0.5) / 4);
  assert.equal(c[0 * 3 + 2], (0.5 - 0.5 * 0.75) / 4);
  assert.equal(c[2 * 3 + 0], c[0 * 3 + 2]);
});

test('checkpoints scored on different numbers of examples are refused', () => {
  assert.throws(() => shareCovariance([Uint8Array.from([1, 0]), Uint8Array.from([1])]), /2 and 1 examples/);
});
