// Whether two analysis answers are the same: the same JSON tree (keys, array lengths, strings,
// booleans, nulls) with every number within `tolerance` of the other, relative to the larger of 1
// and its size. Used to check that a speed change changed no answer: keep the answers
// of bench/analyze-scale.ts before and after (GENSTUDY_ANALYZE_SCALE_KEEP) and compare them.
//
// node --import tsx bench/json-diff.ts BEFORE AFTER [TOLERANCE]: files, or folders whose *.json
// files are compared by name (a file in one folder and not the other is a difference); prints each
// difference (at most 20 per file) and the largest numeric one, and exits 1 when any exceeds it.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export interface JsonDiff { differences: string[]; maxNumeric: number }

export function jsonDiff(a: unknown, b: unknown, tolerance: number, path = '$', out: JsonDiff = { differences: [], maxNumeric: 0 }): JsonDiff {
  if (typeof a === 'number' && typeof b === 'number') {
    const d = Math.abs(a - b) / Math.max(1, Math.abs(a), Math.abs(b));
    if (!(d <= tolerance) && !(Number.isNaN(a) && Number.isNaN(b))) out.differences.push(`${path}: ${a} vs ${b}`);
    if (d > out.maxNumeric) out.maxNumeric = d;
  } else if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) out.differences.push(`${path}: ${a.length} vs ${b.length} entries`);
    for (let i = 0; i < Math.min(a.length, b.length); i++) jsonDiff(a[i], b[i], tolerance, `${path}[${i}]`, out);
  } else if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const ka = Object.keys(a), kb = Object.keys(b);
    for (const k of ka) {
      if (!(k in b)) out.differences.push(`${path}.${k}: only in the first`);
      else jsonDiff((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], tolerance, `${path}.${k}`, out);
    }
    for (const k of kb) if (!(k in a)) out.differences.push(`${path}.${k}: only in the second`);
  } else if (a !== b) {
    out.differences.push(`${path}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
  }
  return out;
}

function filesOf(first: string, second: string): [string, string][] {
  if (!statSync(first).isDirectory()) return [[first, second]];
  const names = new Set([...readdirSync(first), ...readdirSync(second)].filter((f) => f.endsWith('.json')));
  return [...names].sort().map((f) => [join(first, f), join(second, f)]);
}

if (process.argv[1]?.endsWith('json-diff.ts')) {
  const [first, second, tol] = process.argv.slice(2);
  const tolerance = tol === undefined ? 1e-12 : Number(tol);
  let failed = false;
  for (const [a, b] of filesOf(first, second)) {
    let diff: JsonDiff;
    try {
      diff = jsonDiff(JSON.parse(readFileSync(a, 'utf8')), JSON.parse(readFileSync(b, 'utf8')), tolerance);
    } catch (e) {
      console.log(`${a}: ${(e as Error).message}`);
      failed = true;
      continue;
    }
    failed ||= diff.differences.length > 0;
    console.log(`${a}: ${diff.differences.length} differences, largest relative numeric difference ${diff.maxNumeric.toExponential(2)}`);
    for (const d of diff.differences.slice(0, 20)) console.log(`  ${d}`);
  }
  process.exitCode = failed ? 1 : 0;
}
