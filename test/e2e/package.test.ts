// genstudy as a library from another project: `npm pack` (which builds dist/), unpack into a
// temporary project's node_modules, then plain Node imports it and TypeScript type-checks a user's
// file against its declarations. The temporary project sits inside this checkout, so the package's
// own dependencies resolve from the checkout's node_modules without a second install. And
// `npm install <this checkout>` from a project elsewhere: npm links the folder and runs its
// `prepare` script, which builds dist/, so the import works without a separate build step.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { analyzeRuns, DEFAULT_OPTIONS } from '../../src/analyze/analysis.ts';
import { readScores } from '../../src/analyze/read-scores.ts';
import { buildRunSeries } from '../../src/analyze/run-series.ts';
import { distIsFresh } from '../../bin/dist-freshness.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

test('the packed package imports in plain Node and type-checks in a TypeScript project', { timeout: 300_000 }, async (t) => {
  fs.mkdirSync(path.join(root, 'tmp'), { recursive: true });
  const project = fs.mkdtempSync(path.join(root, 'tmp', 'package-test-'));
  t.after(() => fs.rmSync(project, { recursive: true, force: true }));
  const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', project],
    { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })) as { filename: string; files: { path: string }[] }[];
  const files = packed[0].files.map((f) => f.path);
  for (const f of ['dist/index.js', 'dist/index.d.ts', 'dist/data/registry.json', 'bin/genstudy.js', 'package.json'])
    assert.ok(files.includes(f), `${f} is not in the package`);
  assert.ok(!files.some((f) => f.startsWith('test/')), 'tests are not part of the package');

  const modules = path.join(project, 'node_modules');
  fs.mkdirSync(modules);
  execFileSync('tar', ['-xzf', path.join(project, packed[0].filename), '-C', modules]);
  fs.renameSync(path.join(modules, 'package'), path.join(modules, 'genstudy'));
  assert.ok(distIsFresh(path.join(modules, 'genstudy')), "the package's bin runs its dist/: built from the src/ it ships");
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'user-project', type: 'module', private: true }));

  const csv = ['run,step,test_set,metric,value'];
  const id = [0.1, 0.2, 0.3, 0.35, 0.5, 0.55, 0.6, 0.7], a = [0.3, 0.1, 0.5, 0.2, 0.6, 0.4, 0.8, 0.5], b = [0.2, 0.3, 0.1, 0.5, 0.3, 0.6, 0.4, 0.9];
  id.forEach((_, i) => csv.push(`r1,${i},id,accuracy,${id[i]}`, `r1,${i},a,accuracy,${a[i]}`, `r1,${i},b,accuracy,${b[i]}`));
  fs.writeFileSync(path.join(project, 'scores.csv'), csv.join('\n') + '\n');
  const options = { ...DEFAULT_OPTIONS, control: 'id' };
  fs.writeFileSync(path.join(project, 'use.mjs'), [
    "import { analyzeRuns, readScores, buildRunSeries, partialCorrelation, ResultStore, loadModel, evaluateGrid, train, renderReport " +
      "} from 'genstudy';",
    "for (const f of [partialCorrelation, ResultStore, loadModel, evaluateGrid, train, renderReport]) if (typeof f !== 'function') throw new " +
      "Error('missing export');",
    `const result = analyzeRuns(buildRunSeries(await readScores('scores.csv'), 'accuracy'), ${JSON.stringify(options)});`,
    'process.stdout.write(JSON.stringify(result));',
  ].join('\n'));
  const fromPackage = JSON.parse(execFileSync(process.execPath, ['use.mjs'], { cwd: project, encoding: 'utf8' }));
  const here = analyzeRuns(buildRunSeries(await readScores(path.join(project, 'scores.csv')), 'accuracy'), options);
  assert.equal(fromPackage.runs[0].pairs.length, 1);
  assert.deepEqual(fromPackage, JSON.parse(JSON.stringify(here)));

  fs.writeFileSync(path.join(project, 'use.ts'), [
    "import { analyzeRuns, type AnalysisResult, type LanguageModel } from 'genstudy';",
    'export const run: (s: Parameters<typeof analyzeRuns>[0]) => AnalysisResult = (s) => analyzeRuns(s, { control: "id", method: "pearson", ' +
      'residualiser: "linear", correction: "none", alpha: 0.05 } as Parameters<typeof analyzeRuns>[1]);',
    'export type M = LanguageModel["score"];',
    "// @ts-expect-error: a name the package does not export",
    "import { notAnExport } from 'genstudy';",
  ].join('\n'));
  fs.writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext',
    strict: true, noEmit: true, skipLibCheck: true, types: [] }, files: ['use.ts'] }));
  execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', project], { cwd: project, stdio: 'inherit' });
});

test('npm install <path to a checkout> builds the library (prepare) and a project elsewhere imports it', { timeout: 600_000 }, (t) => {
  const project = fs.mkdtempSync(path.join(os.tmpdir(), 'genstudy-install-path-'));
  t.after(() => fs.rmSync(project, { recursive: true, force: true }));
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'user-project', type: 'module', private: true }));
  // No dist/ before: the install must build it (a fresh clone has none; it is not committed).
  fs.rmSync(path.join(root, 'dist'), { recursive: true, force: true });
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', root], { cwd: project, stdio: ['ignore', 'ignore', 'inherit'] });
  assert.ok(fs.existsSync(path.join(root, 'dist', 'index.js')), 'prepare built dist/');
  fs.writeFileSync(path.join(project, 'use.mjs'), [
    "import { analyzeRuns, buildRunSeries } from 'genstudy';",
    'const values = new Map([["id", [0.1, 0.2, 0.3, 0.35, 0.5, 0.55, 0.6, 0.7]], ["a", [0.3, 0.1, 0.5, 0.2, 0.6, 0.4, 0.8, 0.5]], ["b", [0.2, 0.3, ' +
      '0.1, 0.5, 0.3, 0.6, 0.4, 0.9]]]);',
    'const rows = [...values].flatMap(([testSet, v]) => v.map((value, step) => ({ run: "r1", step, testSet, metric: "accuracy", value, attributes: ' +
      '{}, origin: "use.mjs" })));',
    'const result = analyzeRuns(buildRunSeries(rows, "accuracy"), { control: "id" });',
    'process.stdout.write(`${result.runs[0].pairs.length} pair`);',
  ].join('\n'));
  assert.equal(execFileSync(process.execPath, ['use.mjs'], { cwd: project, encoding: 'utf8' }), '1 pair');
});
