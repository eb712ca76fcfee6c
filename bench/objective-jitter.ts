// How much of a default analysis's answer is decided by the REML objective's last bit. The noise
// model's search (src/stats/noise-model.ts) refines each fit by golden-section steps down to where
// two objective values differ only in their rounding, so another correct evaluation of the same
// objective (numpy's, a SIMD one, another order of the sums) ends elsewhere along a flat likelihood.
// This bench measures that spread: it copies src/ to a temporary folder, adds to every objective
// value a pseudo-random error of at most half an ulp of it (what another rounding does), runs the
// default analysis there and here on the same seeded scores (bench/analyze-scale.ts's tables), and
// compares the two JSON answers.
//
// GENSTUDY_JITTER_SIZE names the size (bench/analyze-scale.ts's names; default Pythia's schedule,
// 16x30x154-pythia).
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { GROWTH, SIZES, writeScores } from './analyze-scale.ts';
import { jsonDiff } from './json-diff.ts';

const ANCHOR = '  const objective = remembered(objectiveAt);';
const JITTERED = `  const jitter = (v: number, t: number, w: number): number => {
    const h = Math.imul(Math.imul((t * 1e9) | 0, 0x9e3779b1) ^ ((w * 1e9) | 0), 0x85ebca6b) >>> 0;
    return v + Math.abs(v) * Number.EPSILON * (h / 2 ** 32 - 0.5);
  };
  const objective = remembered((t, w) => jitter(objectiveAt(t, w), t, w));
  const exactGrid = atGrid;
  atGrid = (i, j) => jitter(exactGrid(i, j), i, j);`;

interface Pair { p: number | null }
interface Answer { runs: { pairs: Pair[] }[] }

export async function benchObjectiveJitter(): Promise<Record<string, number | string>> {
  const root = resolve(import.meta.dirname, '..');
  const name = process.env.GENSTUDY_JITTER_SIZE ?? '16x30x154-pythia';
  const size = [...SIZES, ...GROWTH.flatMap((g) => g.sizes)].find((s) => s.name === name);
  if (!size) throw new Error(`unknown size "${name}"`);
  const dir = mkdtempSync(join(tmpdir(), 'genstudy-objective-jitter-'));
  try {
    cpSync(join(root, 'src'), join(dir, 'src'), { recursive: true });
    cpSync(join(root, 'package.json'), join(dir, 'package.json'));
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
    const model = join(dir, 'src/stats/noise-model.ts');
    const text = readFileSync(model, 'utf8');
    if (!text.includes(ANCHOR)) throw new Error('noise-model.ts no longer has the line the jitter replaces: update bench/objective-jitter.ts');
    writeFileSync(model, text.replace(ANCHOR, JITTERED));
    writeFileSync(join(dir, 'run.ts'), "import { main } from './src/cli/main.ts';\nprocess.exitCode = await main(process.argv.slice(2));\n");
    const csv = join(dir, 'scores.csv');
    writeScores(csv, size);
    const args = ['analyze', csv, '--control', 'in-domain', '--format', 'json'];
    const run = (command: string[], cwd: string): Answer => {
      const res = spawnSync(process.execPath, [...command, ...args], { cwd, encoding: 'utf8', maxBuffer: 1 << 30 });
      if (res.status !== 0) throw new Error(`${command.join(' ')} failed: ${res.stderr.slice(-2000)}`);
      return JSON.parse(res.stdout) as Answer;
    };
    const exact = run([join(root, 'bin/genstudy.js')], root);
    const jittered = run(['--import', 'tsx', join(dir, 'run.ts')], dir);
    const numeric = jsonDiff(exact, jittered, 0);
    const other = jsonDiff(exact, jittered, Infinity);
    let pDiff = 0, pairs = 0;
    exact.runs.forEach((r, i) => r.pairs.forEach((pair, j) => {
      pDiff = Math.max(pDiff, Math.abs((pair.p ?? 0) - (jittered.runs[i].pairs[j].p ?? 0)));
      pairs++;
    }));
    return {
      size: name, pairs, numbers_changed: numeric.differences.length, largest_relative_change: numeric.maxNumeric,
      largest_abs_p_change: pDiff, non_numeric_changes: other.differences.length,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
