// The flow of docs/design.md runs one way: a folder imports only from the folders listed for it
// below (and from the shared top-level modules src/*.ts), and the pure folders do no I/O. The
// table is the one in docs/design.md; change both together. Within a folder too, no file imports
// itself back through others (type-only imports included), but for the cycles in KNOWN_CYCLES.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');

/** folder -> the folders it may import from (besides itself and src/*.ts). */
const MAY_IMPORT: Record<string, string[]> = {
  stats: [],
  metrics: [],
  store: [],
  data: [],
  engine: [],
  tasks: ['data'],
  synth: ['data', 'tasks'],
  config: ['data', 'tasks', 'analyze', 'train', 'synth'], // analyze/options.ts, train/option-table.ts, synth/design.ts: one table each
  train: ['data', 'tasks', 'synth', 'engine', 'store'],
  evaluate: ['data', 'tasks', 'synth', 'engine', 'metrics', 'store'],
  analyze: ['data', 'stats', 'store'],
  report: ['analyze', 'stats', 'store'],
  serve: ['engine'],
  pipeline: ['config', 'data', 'tasks', 'synth', 'engine', 'train', 'evaluate', 'metrics', 'store', 'stats', 'analyze', 'report'],
  cli: ['config', 'data', 'tasks', 'synth', 'engine', 'train', 'evaluate', 'metrics', 'store', 'stats', 'analyze', 'report', 'pipeline', 'serve'],
};

/** Folders whose internals stay private: other folders import them only through this one file.
 *  (Tests and benchmarks may reach past it to test internals.) */
const FRONT_DOOR: Record<string, string> = { engine: 'index.ts' };

/** Why an import from `file` reaches past another folder's front door, or undefined. */
function pastFrontDoor(file: string, spec: string): string | undefined {
  const resolved = path.resolve(path.dirname(file), spec);
  const target = folderOf(resolved);
  if (target === undefined || target === folderOf(file) || !(target in FRONT_DOOR)) return undefined;
  const door = path.join(src, target, FRONT_DOOR[target]);
  return resolved === door ? undefined : `outside ${target}/, import from ${target}/${FRONT_DOOR[target]}`;
}

/** A folder that may read only some files of another: config/ takes the options' one tables, no tensors or I/O with them. */
const ONLY_FILES: Record<string, Record<string, string[]>> = {
  config: { analyze: ['analyze/options.ts'], train: ['train/option-table.ts'], synth: ['synth/design.ts'] },
};

/** Folders that compute only: no files, network, processes or databases. */
const NO_IO = ['stats'];
const IO_MODULES = /^(node:)?(fs|fs\/promises|net|http|https|child_process|worker_threads|dgram|tls)$|^better-sqlite3$/;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return e.name.endsWith('.ts') ? [p] : [];
  });
}

/** Every module specifier a file imports or re-exports, statically or with import(). */
function specifiers(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'";]*?\bfrom\s*'([^']+)'/g)) found.push(m[1]);
  for (const m of text.matchAll(/(?:^|\n)\s*import\s*'([^']+)'/g)) found.push(m[1]);
  for (const m of text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)) found.push(m[1]);
  return found;
}

const folderOf = (file: string): string | undefined => {
  const rel = path.relative(src, file).split(path.sep);
  return rel.length > 1 ? rel[0] : undefined;
};

/**
 * Import cycles that exist and are not yet broken, each as its files (sorted, relative to src/). The
 * list is exact: a new cycle, a file joining one of these, or one of these gone fails the test.
 */
const KNOWN_CYCLES: string[][] = [];

/**
 * The import cycles of a graph (file -> the files it imports): its strongly connected components of
 * more than one file, or of one file that imports itself (Tarjan's algorithm). Each is sorted, and
 * the list is sorted by first file.
 */
function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v)!.includes(v)) cycles.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return cycles.sort((a, b) => a[0].localeCompare(b[0]));
}

/** Each source file under src/ (relative, with /) -> the source files it imports, type-only imports included. */
function importGraph(files: string[]): Map<string, string[]> {
  const rel = (file: string): string => path.relative(src, file).split(path.sep).join('/');
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = specifiers(fs.readFileSync(file, 'utf8')).filter((spec) => spec.startsWith('.'));
    graph.set(rel(file), targets.map((spec) => rel(path.resolve(path.dirname(file), spec))));
  }
  return graph;
}

test('every folder imports only from the folders the flow allows, and pure folders do no I/O', () => {
  const files = sourceFiles(src);
  assert.ok(files.length > 100, `only ${files.length} source files found under ${src}`);
  const folders = new Set(files.map(folderOf).filter((f): f is string => f !== undefined));
  assert.deepEqual([...folders].filter((f) => !(f in MAY_IMPORT)), [], 'a folder is missing from the table (add it here and in docs/design.md)');
  const wrong: string[] = [];
  let checked = 0;
  for (const file of files) {
    const from = folderOf(file);
    for (const spec of specifiers(fs.readFileSync(file, 'utf8'))) {
      const rel = path.relative(src, file);
      if (spec.startsWith('.')) {
        checked++;
        const target = folderOf(path.resolve(path.dirname(file), spec));
        if (target === undefined || target === from) continue;
        const pastDoor = pastFrontDoor(file, spec);
        if (pastDoor) wrong.push(`${rel} imports ${spec}: ${pastDoor}`);
        if (from === undefined && rel === 'index.ts') continue; // the public library's front door re-exports every stage
        if (from === undefined) wrong.push(`${rel} (a shared top-level module) imports ${target}/ (${spec})`);
        else if (!MAY_IMPORT[from].includes(target)) wrong.push(`${rel} imports ${target}/ (${spec}), later in the flow or beside it`);
        else if (ONLY_FILES[from]?.[target] &&
          !ONLY_FILES[from][target].includes(path.relative(src, path.resolve(path.dirname(file), spec)).split(path.sep).join('/'))) {
          wrong.push(`${rel} imports ${spec}: from ${target}/, ${from}/ may import only ${ONLY_FILES[from][target].join(', ')}`);
        }
      } else if (from !== undefined && NO_IO.includes(from) && IO_MODULES.test(spec)) {
        wrong.push(`${rel} imports ${spec}: ${from}/ computes only`);
      }
    }
  }
  assert.ok(checked > 300, `only ${checked} relative imports seen: the import pattern no longer matches the code`);
  assert.deepEqual(wrong, []);
});

test('the checker sees a backwards import', () => {
  const text = "import { x } from '../evaluate/grid.ts';\nexport { y } from './z.ts';\nconst m = await import('../report/index.ts');\nimport type " +
    "{\n  A,\n} from '../cli/main.ts';\n";
  assert.deepEqual(specifiers(text), ['../evaluate/grid.ts', './z.ts', '../cli/main.ts', '../report/index.ts']);
});

test('the checker sees an import past engine/index.ts, and lets engine/ import itself', () => {
  assert.match(pastFrontDoor(path.join(src, 'train/trainer.ts'), '../engine/builtin/native/fused-ops.ts') ?? '', /engine\/index\.ts/);
  assert.match(pastFrontDoor(path.join(src, 'index.ts'), './engine/remote/index.ts') ?? '', /engine\/index\.ts/);
  assert.equal(pastFrontDoor(path.join(src, 'train/trainer.ts'), '../engine/index.ts'), undefined);
  assert.equal(pastFrontDoor(path.join(src, 'engine/remote/loader.ts'), '../hf/checkpoint.ts'), undefined);
});

test('no file imports itself back through others, but for the known cycles', () => {
  const graph = importGraph(sourceFiles(src));
  const edges = [...graph.values()].reduce((n, targets) => n + targets.length, 0);
  assert.ok(edges > 300, `only ${edges} relative imports seen: the import pattern no longer matches the code`);
  const cycles = importCycles(graph);
  const known = KNOWN_CYCLES.map((c) => [...c].sort()).sort((a, b) => a[0].localeCompare(b[0]));
  assert.deepEqual(cycles, known, 'import cycles other than KNOWN_CYCLES (break a new one by moving what both sides need into '
    + 'a module of its own; remove a known one from KNOWN_CYCLES once it is broken)');
});

test('the cycle finder sees a cycle through type-only imports and a file importing itself', () => {
  const graph = new Map<string, string[]>([
    ['a.ts', ['b.ts']], ['b.ts', ['c.ts', 'd.ts']], ['c.ts', ['a.ts']], ['d.ts', ['d.ts', 'node-module']], ['e.ts', ['a.ts']],
  ]);
  assert.deepEqual(importCycles(graph), [['a.ts', 'b.ts', 'c.ts'], ['d.ts']]);
  assert.deepEqual(importCycles(new Map([['a.ts', ['b.ts']], ['b.ts', []]])), []);
  const text = "import type { M } from './model.ts';\nexport type { N } from './n.ts';\n";
  assert.deepEqual(specifiers(text), ['./model.ts', './n.ts']);
});
