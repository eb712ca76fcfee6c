// The preset table (src/tasks/task-presets.ts) is where callers learn what a preset is; the
// registry names each data set's preset; a task spec file's `join` is read and used.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { readRegistry } from '../../src/data/index.ts';
import {
  buildFirstTokenRequests, demonstrationsFor, joinFor, STUDY_B_LLAMA2_TARGET_IDS, STUDY_B_TASKS, studyBKind, syntheticTask,
  TASK_PRESET_NAMES, taskByName, taskPreset, taskShortName, trainingPieces,
} from '../../src/tasks/index.ts';
import type { Example } from '../../src/types.ts';

test('the table holds study A, each of study B\'s five tasks and the synthetic suite, with the facts callers ask', () => {
  assert.deepEqual(TASK_PRESET_NAMES, ['study-a', ...STUDY_B_TASKS.map((t) => `study-b/${t}`), 'synthetic']);
  for (const t of STUDY_B_TASKS) {
    const p = taskPreset(`study-b/${t}`)!;
    assert.equal(p.study, 'B');
    assert.equal(p.studyBTask, t);
    assert.equal(p.shortName, t);
    assert.equal(p.kind, studyBKind(t));
    assert.deepEqual(p.prompts, [1, 2]);
    assert.equal(p.llama2Ids !== undefined, STUDY_B_LLAMA2_TARGET_IDS[t] !== undefined, t);
    assert.equal(p.spec(2, 'first-token').name, `study-b/prompt-2/${t}`);
  }
  assert.equal(taskPreset('study-a')!.study, 'A');
  assert.equal(taskPreset('synthetic')!.study, undefined);
  for (const name of ['study-a', 'synthetic']) assert.deepEqual(taskPreset(name)!.prompts, [1]);
  assert.equal(taskPreset('study-b/unknown'), undefined);
  assert.equal(taskPreset(undefined), undefined);
  assert.equal(taskShortName('study-b/sentiment'), 'sentiment');
  assert.equal(taskShortName('tasks/mine.yaml'), 'mine.yaml');
});

test('every registered data set names a preset of the table, of the kind its registry entry says', () => {
  const sets = Object.entries(readRegistry().sets);
  assert.ok(sets.length > 20);
  for (const [id, set] of sets) {
    const preset = taskPreset(set.preset);
    assert.ok(preset, `registry set "${id}" names preset "${set.preset}", not one of ${TASK_PRESET_NAMES.join(', ')}`);
    assert.equal(preset.kind, set.task, id);
  }
  assert.equal(readRegistry().sets['study-b/inference/snli'].preset, 'study-b/inference');
  assert.equal(readRegistry().sets['study-a/snli'].preset, 'study-a');
});

test('the synthetic task goes by "synthetic"; only study B\'s tasks have a Prompt-2', () => {
  assert.equal(syntheticTask().name, 'synthetic');
  assert.equal(taskByName('synthetic').name, 'synthetic');
  assert.equal(taskByName('study-b/sentiment', { prompt: 2 }).name, 'study-b/prompt-2/sentiment');
  for (const name of ['study-a', 'synthetic']) {
    assert.throws(() => taskByName(name, { prompt: 2 }), /--prompt 2: only study B's tasks have a Prompt-2/);
  }
  assert.throws(() => taskByName('study-b/translation'), /--task study-b\/translation: not a preset \(study-a, study-b\/summary, .*synthetic\)/);
});

test('study B\'s zero-shot "<s> " comes from its tasks\' join, and only under study B\'s BOS rule', () => {
  const b = taskByName('study-b/sentiment');
  assert.deepEqual(joinFor(b, 'study-b'), { separator: '\n\n', zeroShotPrefix: '<s> ' });
  assert.deepEqual(joinFor(b, 'tokenizer'), { separator: '\n\n', zeroShotPrefix: '' });
  assert.deepEqual(joinFor(taskByName('study-a'), 'study-b'), { separator: '\n\n', zeroShotPrefix: '' });
});

test('a task spec file\'s join: its separator between demonstrations, its zero-shot prefix under study B\'s BOS rule only', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'genstudy-task-'));
  try {
    const file = path.join(dir, 'qa.yaml');
    fs.writeFileSync(file, [
      'kind: classify', 'name: qa', 'template: "Q: {q}\\nA:"', 'labels: [yes, no]', 'verbalizer: { "yes": " yes", "no": " no" }',
      'join: { separator: "\\n---\\n", zeroShotPrefix: "[BOS]" }', '',
    ].join('\n'));
    const task = taskByName(file);
    assert.ok(task.kind === 'classify');
    assert.deepEqual(task.join, { separator: '\n---\n', zeroShotPrefix: '[BOS]' });
    const ex = (i: number, label: string): Example => ({ id: `e${i}`, fields: { q: `q${i}` }, label });
    const pool = [ex(1, 'yes'), ex(2, 'no')];
    const query = ex(3, 'yes');
    const demonstrations = demonstrationsFor(task, pool, { kind: 'first-k', k: 2 });
    const [withDemos] = buildFirstTokenRequests(task, [query], { demonstrations, join: joinFor(task, 'tokenizer') });
    assert.equal(withDemos.context, 'Q: q1\nA: yes\n---\nQ: q2\nA: no\n---\nQ: q3\nA:');
    assert.equal(buildFirstTokenRequests(task, [query], { join: joinFor(task, 'study-b') })[0].context, '[BOS]Q: q3\nA:');
    assert.equal(buildFirstTokenRequests(task, [query], { join: joinFor(task, 'tokenizer') })[0].context, 'Q: q3\nA:');
    // Without a join given, requests and training strings use the task's separator and no prefix.
    assert.equal(buildFirstTokenRequests(task, [query], { demonstrations })[0].context, withDemos.context);
    assert.equal(trainingPieces(task, [query], { demonstrations })[0].context, withDemos.context);

    fs.writeFileSync(file, 'kind: classify\nname: qa\ntemplate: "{q}"\nlabels: [a, b]\nverbalizer: { a: a, b: b }\njoin: { between: "x" }\n');
    assert.throws(() => taskByName(file), /qa\.yaml.*join.*between/s);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('no source file outside tasks/ reads what a preset is off its name', () => {
  const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');
  const files = (fs.readdirSync(src, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts') && !f.startsWith(`tasks${path.sep}`));
  const offenders: string[] = [];
  for (const f of files) {
    const text = fs.readFileSync(path.join(src, f), 'utf8');
    for (const m of text.matchAll(/startsWith\(\s*['"`]study-|=== ['"`]study-[ab]['"`]|\.slice\(\s*['"`]study-b\//g)) offenders.push(`${f}: ${m[0]}`);
  }
  assert.deepEqual(offenders, []);
});
