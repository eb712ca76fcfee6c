// One name per protocol setting, from the study file through the resolved settings to the trainer
// and the run's record: each setting is one entry of tasks/protocol.ts's table, its study-file
// field derived from it and declared nowhere else; an old spelling in a study file is still read,
// with one note naming the file and the spelling to write.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { parseStudy } from '../../src/config/load.ts';
import { EvaluationSchema, fieldsOnce, MethodSchema, protocolFields } from '../../src/config/schema.ts';
import { methodSettingsOf, studySettings, trainerSettingsOf } from '../../src/config/settings.ts';
import { NO_PROGRESS } from '../../src/evaluate/index.ts';
import { oldSpellingNotes } from '../../src/old-spellings.ts';
import { runStudy } from '../../src/pipeline/run-study.ts';
import { ResultStore } from '../../src/store/result-store.ts';
import { PROTOCOL_SETTING_SPECS, protocolSettingsAt, type ProtocolSettingName, type ProtocolSettingSpec } from '../../src/tasks/index.ts';
import { silentProgress, type TrainOptions } from '../../src/train/index.ts';
import { LORA_STUDY_FIELDS, TRAINING_STUDY_FIELDS } from '../../src/train/option-table.ts';
import { resolveOptions } from '../../src/train/options.ts';
import { syntheticTask } from '../../src/tasks/presets.ts';
import { studyBYaml } from '../support/study-b-yaml.ts';
import { tinyStudyYaml } from '../support/tiny-study.ts';

/** What `fn` notes about old spellings. */
function notesOf<T>(fn: () => T): { value: T; notes: string[] } {
  const notes: string[] = [];
  const write = oldSpellingNotes.write;
  oldSpellingNotes.write = (line) => void notes.push(line);
  try {
    return { value: fn(), notes };
  } finally {
    oldSpellingNotes.write = write;
  }
}

const specs = Object.entries(PROTOCOL_SETTING_SPECS) as [ProtocolSettingName, ProtocolSettingSpec][];

test('an old spelling in a study file is read as the new one, with one note naming the file and what to write', () => {
  const text = studyBYaml('corrected', [
    '{ name: ft, kind: ft, lr: 2.0e-5, truncation: first-1024 }',
    '{ name: ft2, kind: ft, lr: 1.0e-5, truncation: first-1024 }',
  ]);
  const { value: study, notes } = notesOf(() => parseStudy(text, 'old-spelling.yaml'));
  assert.deepEqual(study.methods.map((m) => m.truncation), ['keep-first', 'keep-first']);
  assert.deepEqual(notes, ['genstudy: old-spelling.yaml: truncation: "first-1024" is the old spelling of "keep-first"; ' +
    'it is read as "keep-first", which is what to write']);
  // The same study file read again in the same process notes nothing more; another file is named in its own note.
  assert.deepEqual(notesOf(() => parseStudy(text, 'old-spelling.yaml')).notes, []);
  const set = notesOf(() => parseStudy(studyBYaml('corrected', ['{ name: ft, kind: ft, lr: 2.0e-5 }']), 'set.yaml',
    ['methods.0.truncation=first-1024']));
  assert.equal(set.value.methods[0].truncation, 'keep-first', 'an --set override in the old spelling too');
  assert.match(set.notes.join('\n'), /^genstudy: set\.yaml: truncation: "first-1024" is the old spelling of "keep-first"/);
  // The new spelling, and the protocol's value, note nothing; a misspelling is still refused.
  assert.deepEqual(notesOf(() => parseStudy(studyBYaml('official', ['{ name: ft, kind: ft, lr: 2.0e-5, truncation: keep-first }']),
    'new.yaml')).notes, []);
  assert.throws(() => parseStudy(studyBYaml('corrected', ['{ name: ft, kind: ft, lr: 2.0e-5, truncation: first-2048 }']), 'bad.yaml'),
    /bad\.yaml:\d+: methods\.0\.truncation: .*"keep-target".*"keep-first"/);
});

test('each protocol setting is declared once: a second declaration of a study-file field is refused', () => {
  assert.throws(() => fieldsOnce('methods', TRAINING_STUDY_FIELDS, { maxGradNorm: z.number().optional() }, protocolFields('method')),
    /study file, methods: the field "maxGradNorm" is declared twice/);
  assert.throws(() => fieldsOnce('evaluation', { readingPosition: z.string() }, protocolFields('evaluation')),
    /study file, evaluation: the field "readingPosition" is declared twice/);
  // The real sections: every setting written in a section is its field there, under its own name, from the table alone.
  const fieldsOf = (schema: z.ZodObject) => Object.keys(schema.shape);
  for (const [place, schema] of [['evaluation', EvaluationSchema], ['method', MethodSchema]] as const) {
    for (const name of protocolSettingsAt(place)) assert.ok(fieldsOf(schema).includes(name), `${place}: ${name}`);
  }
  for (const table of [TRAINING_STUDY_FIELDS, LORA_STUDY_FIELDS]) {
    assert.deepEqual(Object.keys(table).filter((k) => k in PROTOCOL_SETTING_SPECS), [], 'a protocol setting in an option table too');
  }
  for (const [name, spec] of specs) {
    // A setting with no key of its own is set through a field that exists.
    if (typeof spec.study === 'object') assert.ok(fieldsOf(EvaluationSchema).includes(spec.study.setBy), name);
    // An old spelling is not also a current one.
    const choices: readonly string[] = spec.kind === 'choice' ? spec.choices : [];
    for (const [old, now] of Object.entries(spec.oldSpellings ?? {})) {
      assert.ok(!choices.includes(old) && choices.includes(now), `${name}: ${old} -> ${now}`);
    }
  }
});

test('the resolved settings and the trainer\'s options take the study file\'s names', () => {
  const study = parseStudy(studyBYaml('official', [
    '{ name: ft, kind: ft, lr: 2.0e-5, objective: supervised, truncation: keep-first, maxGradNorm: 0.5, lossWeighting: step-tokens }',
  ], '  readingPosition: last-token\n  positiveLabel: positive'), 'names.yaml');
  const settings = studySettings(study);
  const written = (Object.keys(study.evaluation) as string[]).filter((k) => k in PROTOCOL_SETTING_SPECS);
  for (const k of written) assert.equal(settings[k as ProtocolSettingName], (study.evaluation as Record<string, unknown>)[k], k);
  const method = study.methods[0];
  for (const k of protocolSettingsAt('method')) {
    if (method[k] !== undefined) assert.equal(methodSettingsOf(settings, method)[k], method[k], k);
  }
  const trainer = trainerSettingsOf(settings, method, study.training[1], false);
  assert.deepEqual(trainer, { objective: 'supervised', labelTokens: 'in-context', maxGradNorm: 0.5, lossWeighting: 'step-tokens',
    truncation: 'keep-first', maxLength: 1024 });
  // Every one is a trainer option of that name (the type), and the trainer keeps it as given.
  const named: Pick<TrainOptions, keyof typeof trainer> = trainer;
  const resolved = resolveOptions({ model: 'm', outDir: 'o', task: syntheticTask(), train: [{ id: 'a', fields: {}, label: 'yes' }],
    method: 'full', lr: 1e-3, ...named });
  for (const [k, v] of Object.entries(trainer)) assert.equal(resolved[k as keyof typeof resolved], v, k);
});

test('from the study file to the run\'s record: the objective under its one name, an old truncation spelling read', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'genstudy-protocol-names-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const yaml = tinyStudyYaml({
    name: 'names', trainSize: 16, testSize: 6,
    methods: ['{ name: ft, kind: ft, lr: 0.01, steps: 2, batchSize: 8, objective: label-token, truncation: first-1024 }',
      '{ name: sup, kind: ft, lr: 0.01, steps: 2, batchSize: 8, objective: supervised }'],
    rest: 'seeds: [1]\ncheckpoints: { atStart: false }\nevaluation:\n  control: in-domain\n  testSets: [synthetic]',
  });
  const file = path.join(dir, 'names.yaml');
  fs.writeFileSync(file, yaml);
  const { value: study, notes } = notesOf(() => parseStudy(yaml, file));
  assert.equal(notes.length, 1);
  assert.ok(notes[0].startsWith(`genstudy: ${file}: truncation: "first-1024"`), notes[0]);
  const result = await runStudy(study, file, { log: () => undefined, trainProgress: silentProgress, evalProgress: NO_PROGRESS });
  const store = ResultStore.open(result.paths.store, { readonly: true });
  try {
    const objective = Object.fromEntries(store.runs().map((r) => [r.id, r.attributes?.objective]));
    assert.deepEqual(objective, { 'tiny--synthetic--ft': 'label-token', 'tiny--synthetic--sup': 'supervised' });
  } finally {
    store.close();
  }
});
