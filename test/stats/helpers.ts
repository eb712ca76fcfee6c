// Shared by the stats tests: golden fixtures (made by the scripts in test/stats/golden/) and a
// relative-or-absolute closeness assertion.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

export function golden<T>(name: string): T {
  return JSON.parse(readFileSync(join(here, 'golden', name), 'utf8')) as T;
}

/** |actual - expected| <= tol * max(1, |expected|). */
export function assertClose(actual: number | null | undefined, expected: number, tol: number, what: string): void {
  assert.ok(typeof actual === 'number' && Number.isFinite(actual), `${what}: expected a number, got ${actual}`);
  const err = Math.abs(actual - expected);
  assert.ok(err <= tol * Math.max(1, Math.abs(expected)), `${what}: ${actual} vs ${expected} (diff ${err.toExponential(2)} > ${tol})`);
}

/** Relative closeness for p-values that can be tiny: |a - e| <= tol * |e| (or 1e-300 absolute). */
export function assertRelClose(actual: number | null | undefined, expected: number, tol: number, what: string): void {
  assert.ok(typeof actual === 'number' && Number.isFinite(actual), `${what}: expected a number, got ${actual}`);
  const err = Math.abs(actual - expected);
  assert.ok(err <= tol * Math.abs(expected) + 1e-300,
    `${what}: ${actual} vs ${expected} (rel diff ${(err / Math.abs(expected)).toExponential(2)} > ${tol})`);
}
