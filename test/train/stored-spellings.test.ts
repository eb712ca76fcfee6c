// Names a run stores and hashes stay as they were: the trainer's objectives and truncations are
// spelled as a study file spells them (label-token, supervised; keep-target, keep-first), but a
// checkpoint's fingerprint (trainer_state.json) and the hf backend's run.json keep the objective's
// spelling of when runs were first written (classify, generate), so a run trained before the rename
// resumes. The fingerprints below were computed before the rename, with the old spellings.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { studyBTask } from '../../src/tasks/index.ts';
import { train, type Objective, type TrainOptions } from '../../src/train/index.ts';
import { prepareHfRun } from '../../src/train/hf/index.ts';
import type { Example } from '../../src/types.ts';
import { oldSpellingNotes } from '../../src/old-spellings.ts';
import { repoRoot, tempDir } from './helpers.ts';

const model = path.join(repoRoot, 'test/engine/fixtures/opt');
const examples: Example[] = Array.from({ length: 6 }, (_, i) => ({
  id: `e${i}`, fields: { input: `text number ${i} with a few more words in it` }, label: i % 3 ? 'negative' : 'positive',
}));

/** Runs `fn` with the old-spelling notes collected in `into` (each is noted once per process: a fresh spelling shows). */
async function withNotes<T>(into: string[], fn: () => Promise<T>): Promise<T> {
  const write = oldSpellingNotes.write;
  oldSpellingNotes.write = (line) => void into.push(line);
  try {
    return await fn();
  } finally {
    oldSpellingNotes.write = write;
  }
}

const options = (outDir: string, o: Partial<TrainOptions>): TrainOptions => ({
  model, outDir, task: studyBTask('sentiment'), train: examples, method: 'full', lr: 1e-4, batchSize: 3, gradAccum: 1, maxSteps: 1, seed: 3,
  schedule: 'constant', checkpoints: { atStart: false }, ...o,
});

const CASES: [string, Partial<TrainOptions>, string][] = [
  ['label-token', { objective: 'label-token' }, '7e174601bd5098b7e9aec4c29da8a5f6'],
  ['supervised', { objective: 'supervised' }, 'c80b9ca12b9772bce3e265b9df7b288e'],
  ['supervised, keep-first at 12 tokens', { objective: 'supervised', truncation: 'keep-first', maxLength: 12 }, '3c070980c798788132db790c8e7007a0'],
  // A caller still writing the trainer's old spelling gets the same run (and a note).
  ['classify, the old spelling', { objective: 'classify' as Objective }, '7e174601bd5098b7e9aec4c29da8a5f6'],
];

for (const [name, o, pinned] of CASES) {
  test(`the checkpoint fingerprint of a run (${name}) is the one runs written before the rename carry`, async () => {
    const out = tempDir('genstudy-spelling-');
    const notes: string[] = [];
    const result = await withNotes(notes, () => train(options(out, o)));
    assert.deepEqual(notes.length, (o.objective as string) === 'classify' ? 1 : 0, notes.join('\n'));
    if (notes.length) assert.match(notes[0], /training options: objective: "classify" is the old spelling of "label-token"/);
    const state = JSON.parse(fs.readFileSync(path.join(result.checkpoints.at(-1)!.dir, 'trainer_state.json'), 'utf8'));
    assert.equal(state.fingerprint, pinned);
  });
}

test('the hf backend\'s run.json (hashed into its fingerprint) keeps the objective\'s stored spelling', () => {
  for (const [objective, stored] of [['label-token', 'classify'], ['supervised', 'generate']] as const) {
    const p = prepareHfRun(options(tempDir('genstudy-spelling-'), { objective }));
    assert.equal(JSON.parse(fs.readFileSync(p.runFile, 'utf8')).objective, stored);
  }
});
