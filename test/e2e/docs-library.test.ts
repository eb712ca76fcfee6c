// Every library example in the docs runs as written against the packed package: blocks (fenced or
// indented) that import from 'genstudy'. Those whose inputs a test can make (a score table, a results
// store) run in plain Node; the others (a model to train or evaluate) type-check against the
// package's declarations, with the names they leave to the reader declared. Every name any doc
// imports from 'genstudy', in a block or inline, must be one the package exports.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ResultStore } from '../../src/store/result-store.ts';
import { simulateScores } from '../support/simulated-scores.ts';

const root = path.resolve(import.meta.dirname, '../..');
const DOCS = ['README.md', ...fs.readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
const IMPORT = /import\s*\{([^}]*)\}\s*from\s*'genstudy'/g;
/** Blocks that run; the others type-check. */
const RUNS = new Set(['docs/analyze.md', 'docs/report.md']);
/** What a type-checked block leaves to the reader. */
const GIVEN: Record<string, string> = {
  'docs/train.md': 'declare const task: Parameters<typeof train>[0]["task"], examples: Parameters<typeof train>[0]["train"], ' +
    'store: ResultStore;\nimport type { ResultStore as _Store } from "genstudy";\ntype ResultStore = _Store;\n',
};

interface Block { file: string; line: number; code: string }

function libraryBlocks(file: string): Block[] {
  const lines = fs.readFileSync(path.join(root, file), 'utf8').split('\n');
  const blocks: Block[] = [];
  let current: { line: number; code: string[] } | null = null;
  let fenced = false;
  const close = () => {
    if (current && /from 'genstudy'/.test(current.code.join('\n'))) blocks.push({ file, line: current.line, code: current.code.join('\n') });
    current = null;
  };
  lines.forEach((raw, i) => {
    if (/^\s*```/.test(raw)) {
      if (fenced) close(); else current = { line: i + 2, code: [] };
      fenced = !fenced;
      return;
    }
    if (fenced) { current!.code.push(raw); return; }
    if (/^ {4}\S/.test(raw) || (current && raw.trim() === '')) {
      current ??= { line: i + 1, code: [] };
      current.code.push(raw.slice(4));
    } else close();
  });
  close();
  return blocks;
}

test('the docs\' library examples run (or type-check) against the packed package, and import only what ' +
  'it exports', { timeout: 600_000 }, async (t) => {
  fs.mkdirSync(path.join(root, 'tmp'), { recursive: true });
  const project = fs.mkdtempSync(path.join(root, 'tmp', 'docs-library-'));
  t.after(() => fs.rmSync(project, { recursive: true, force: true }));
  const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', project],
    { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })) as { filename: string }[];
  const modules = path.join(project, 'node_modules');
  fs.mkdirSync(modules);
  execFileSync('tar', ['-xzf', path.join(project, packed[0].filename), '-C', modules]);
  fs.renameSync(path.join(modules, 'package'), path.join(modules, 'genstudy'));
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'user-project', type: 'module', private: true }));

  // The inputs the runnable examples name: scores.csv, and the demo's store.
  const rows = simulateScores({ seed: 3, runs: 3, steps: 16 });
  fs.writeFileSync(path.join(project, 'scores.csv'), ['run,step,test_set,metric,value',
    ...rows.map((r) => `${r.run},${r.step},${r.test_set},${r.metric},${r.value}`)].join('\n') + '\n');
  fs.mkdirSync(path.join(project, 'genstudy-demo'));
  const store = ResultStore.open(path.join(project, 'genstudy-demo', 'results.sqlite'));
  store.writeScores(rows.map((r) => ({ run: r.run, step: r.step, testSet: r.test_set, metric: r.metric, value: r.value, n: 1000 })));
  store.close();

  const exported = new Set(Object.keys(await import(path.join(modules, 'genstudy', 'dist', 'index.js'))));
  const typeExports = fs.readFileSync(path.join(modules, 'genstudy', 'dist', 'index.d.ts'), 'utf8');
  let ran = 0, checked = 0;
  for (const file of DOCS) {
    const text = fs.readFileSync(path.join(root, file), 'utf8');
    for (const m of text.matchAll(IMPORT)) {
      for (const name of m[1].split(',').map((s) => s.trim().replace(/^type\s+/, '')).filter(Boolean)) {
        assert.ok(exported.has(name) || new RegExp(`\\b${name}\\b`).test(typeExports), `${file}: imports ${name}, which genstudy does not export`);
      }
    }
    for (const [i, block] of libraryBlocks(file).entries()) {
      const where = `${file}:${block.line}`;
      const stem = `${path.basename(file, '.md')}-${i}`;
      if (RUNS.has(file)) {
        fs.writeFileSync(path.join(project, `${stem}.mjs`), block.code);
        try {
          execFileSync(process.execPath, [`${stem}.mjs`], { cwd: project, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
        } catch (e) {
          assert.fail(`${where}: the example fails:\n${(e as { stderr?: string }).stderr ?? e}`);
        }
        ran++;
      } else {
        fs.writeFileSync(path.join(project, `${stem}.ts`), `${block.code}\n${GIVEN[file] ?? ''}export {};\n`);
        fs.writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext',
          target: 'ES2022', strict: true, noEmit: true, skipLibCheck: true, types: [] }, files: [`${stem}.ts`] }));
        try {
          execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', project], { cwd: project, encoding: 'utf8' });
        } catch (e) {
          assert.fail(`${where}: the example does not type-check:\n${(e as { stdout?: string }).stdout ?? e}`);
        }
        checked++;
      }
    }
  }
  t.diagnostic(`${ran} examples ran, ${checked} type-checked`);
  assert.ok(ran >= 2 && checked >= 2, `ran ${ran}, type-checked ${checked}`);
});
