// cli/ parses flags and prints; the work is the library's (docs/design.md, "Folders added"). This
// fails when a command grows its own orchestration again: training, building a model or a suite,
// or reading a data set itself, instead of calling the pipeline or data function a library user
// calls (`genstudy train` -> pipeline/train-request.ts -> trainRun, as a study's runs;
// `genstudy data inspect` -> data's loadNamedDataSet).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');

/** The values (not types) a file imports by name, with the module each comes from. */
function importedValues(file: string): { name: string; from: string }[] {
  const text = fs.readFileSync(file, 'utf8');
  const out: { name: string; from: string }[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*import\s+(type\s+)?\{([^}]*)\}\s*from\s*'([^']+)'/g)) {
    if (m[1]) continue;
    for (const item of m[2].split(',').map((s) => s.trim()).filter(Boolean)) {
      if (item.startsWith('type ')) continue;
      out.push({ name: item.split(/\s+as\s+/)[0].trim(), from: m[3] });
    }
  }
  return out;
}

const filesIn = (dir: string) => fs.readdirSync(path.join(src, dir)).filter((f) => f.endsWith('.ts')).map((f) => path.join(src, dir, f));

/** The library's workers a command must reach through pipeline/ or data/'s front functions, never call itself. */
const NOT_IN_CLI = new Set([
  'train', 'trainHf', 'trainRun', 'initModel', 'buildScratchModel', 'generateSuite', 'writeSuite',
  'loadExamples', 'loadDataSet', 'loadRegistered', 'readSpecFile', 'readSpecOrDataFile', 'parseDataSetSpec', 'taskKindOf',
]);

test('no command trains, builds a model or a suite, or reads a data set by itself', () => {
  const found = filesIn('cli').flatMap((file) => importedValues(file)
    .filter((i) => NOT_IN_CLI.has(i.name))
    .map((i) => `${path.relative(src, file)} imports ${i.name} from ${i.from}`));
  assert.deepEqual(found, [], 'call the pipeline (trainRequested, runStudy) or data (loadNamedDataSet) function instead');
});

test('the trainers are started in one place, trainRun, which `genstudy train` and a study\'s runs both go through', () => {
  const starters = [...filesIn('cli'), ...filesIn('pipeline')].filter((file) => importedValues(file)
    .some((i) => (i.name === 'train' || i.name === 'trainHf') && /\/train\/(hf\/)?index\.ts$/.test(i.from)));
  assert.deepEqual(starters.map((f) => path.relative(src, f)), ['pipeline/train-run.ts']);
  const callsTrainRun = (rel: string) => importedValues(path.join(src, rel)).some((i) => i.name === 'trainRun');
  assert.ok(callsTrainRun('pipeline/train-request.ts'), 'genstudy train\'s request is trained by trainRun');
  assert.ok(callsTrainRun('pipeline/execute-run.ts'), 'a study\'s run is trained by trainRun');
  assert.ok(importedValues(path.join(src, 'cli/train.ts')).some((i) => i.name === 'trainRequested'), 'genstudy train calls trainRequested');
});

test('genstudy data reads no file itself: which file is a spec, and the task kind, are the data module\'s', () => {
  const text = fs.readFileSync(path.join(src, 'cli/data.ts'), 'utf8');
  assert.doesNotMatch(text, /from\s*'(node:)?fs(\/promises)?'/);
  assert.ok(importedValues(path.join(src, 'cli/data.ts')).some((i) => i.name === 'loadNamedDataSet'));
});
