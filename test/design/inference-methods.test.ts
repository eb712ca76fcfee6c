// An inference method is three spots: its test in stats/, its name in stats/'s INFERENCES and its
// one record in analyze/inference-methods.ts (words, whether it models gaps, its test), from which
// the dispatch, the --inference help and the table's title are read. This test fails when analyze/,
// report/ or the other folders past stats/ branch on a method's name again (a second dispatch, as
// pair-tests.ts's testPairs and testMatched once were), and runs each method's record through the
// analysis's own entry point.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { INFERENCES } from '../../src/stats/index.ts';
import { INFERENCE_METHODS } from '../../src/analyze/inference-methods.ts';
import { ANALYSIS_OPTIONS } from '../../src/analyze/options.ts';
import { testPairs } from '../../src/analyze/pair-tests.ts';
import { mulberry32 } from '../../src/seeded-random.ts';

const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');
const HOME = 'analyze/inference-methods.ts';

/** A branch on the method in use: a comparison or a switch case on `inference`, or on one of the method names. */
function branches(text: string): string[] {
  const names = INFERENCES.map((m) => m.replace(/[-]/g, '\\-')).join('|');
  const patterns = [
    /\binference\s*[!=]==?\s*['"][^'"]+['"]/g,
    /['"][^'"]+['"]\s*[!=]==?\s*\w*\.?inference\b/g,
    /\bswitch\s*\(\s*[\w.]*inference\s*\)/g,
    new RegExp(`\\bcase\\s+['"](${names})['"]`, 'g'),
  ];
  return patterns.flatMap((p) => [...text.matchAll(p)].map((m) => m[0]));
}

function files(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? files(p) : e.name.endsWith('.ts') ? [p] : [];
  });
}

test('outside stats/ nothing branches on the inference method: its record in analyze/inference-methods.ts is read', () => {
  const checked = files(src).filter((f) => !path.relative(src, f).startsWith(`stats${path.sep}`));
  assert.ok(checked.length > 100, `only ${checked.length} files read`);
  const found = checked.flatMap((f) => branches(fs.readFileSync(f, 'utf8')).map((b) => `${path.relative(src, f)}: ${b}`));
  assert.deepEqual(found, [], `read INFERENCE_METHODS (${HOME}) instead`);
});

test('the checker sees the branches the record replaced', () => {
  const before = "return steps !== undefined && opts.inference === 'effective-n' && spacingOf(steps).uneven;\n" +
    "if ('naive' === o.inference) return naivePairs();\nswitch (opts.inference) {\n  case 'naive': break;\n}\n";
  assert.equal(branches(before).length, 4);
});

test("each method's record: its words in --inference's help, and its test answers every pair of a run", () => {
  assert.deepEqual(Object.keys(INFERENCE_METHODS).sort(), [...INFERENCES].sort());
  const rand = mulberry32(7);
  const n = 24;
  const control = Float64Array.from({ length: n }, (_, i) => i / n + 0.05 * rand());
  const ood = Object.fromEntries(['a', 'b', 'c'].map((t) => [t, Float64Array.from(control, (c) => 0.5 * c + 0.1 * rand())]));
  for (const inference of INFERENCES) {
    const words = INFERENCE_METHODS[inference];
    assert.ok(words.title.length > 0 && words.help.length > 0, inference);
    assert.ok(ANALYSIS_OPTIONS.inference.help.includes(`${inference}, ${words.help}`), `${inference}: not in --inference's help`);
    const tested = testPairs(ood, control, { method: 'pearson', residualiser: 'linear', inference, representation: 'levels' });
    assert.deepEqual(tested.map((t) => `${t.a}-${t.b}`), ['a-b', 'a-c', 'b-c'], inference);
    for (const t of tested) assert.ok(t.result.p !== null && t.result.p >= 0 && t.result.p <= 1, `${inference}: p ${t.result.p}`);
  }
});
