// The protocol switch: one study-file line selects every replay setting; single settings override it;
// FTICL's per-task k, the global batch and the objective resolve as docs/studies.md says.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseStudy } from '../../src/config/load.ts';
import { expandStudy } from '../../src/config/expand.ts';
import { gradAccumOf, gridShotsFor, methodSettingsOf, objectiveOf, studySettings, trainerSettingsOf } from '../../src/config/settings.ts';
import { PROTOCOL_SETTING_SPECS, PROTOCOL_SETTINGS, STUDY_B_ICL_SHOTS, type ProtocolSettingName } from '../../src/tasks/index.ts';
import { studyBYaml } from '../support/study-b-yaml.ts';

const base = (protocol: string, evaluation = '', method = '') => studyBYaml(protocol, [
  '{ name: ft, kind: ft, lr: 2.0e-5, batchSize: 2, globalBatch: 16 }',
  `{ name: fticl, kind: fticl, lr: 2.0e-5, demonstrations: { sentiment: [2, 4], summary: [1, 2] }${method} }`,
], evaluation);

test('protocol: official selects every replay setting at once; corrected is the default', () => {
  const official = studySettings(parseStudy(base('official'), 's.yaml'));
  assert.equal(official.protocol, 'official');
  assert.deepEqual(
    { labelTokens: official.labelTokens, bos: official.bos, unlabeledRows: official.unlabeledRows, rouge: official.rouge, grid: official.grid,
      positiveLabel: official.positiveLabel },
    { labelTokens: 'in-context', bos: 'study-b', unlabeledRows: 'wrong', rouge: 'bootstrap-mid', grid: 'every-k-and-prompt', positiveLabel: 'No' },
  );
  assert.equal(official.readingPosition, 'padded-128');
  assert.equal(studySettings(parseStudy(base('official', '  readingPosition: last-token'), 's.yaml')).readingPosition, 'last-token');
  const corrected = studySettings(parseStudy(base('corrected'), 's.yaml'));
  assert.deepEqual(
    { bos: corrected.bos, unlabeledRows: corrected.unlabeledRows, rouge: corrected.rouge, grid: corrected.grid,
      positiveLabel: corrected.positiveLabel, at: corrected.readingPosition },
    { bos: 'tokenizer', unlabeledRows: 'drop', rouge: 'mean', grid: 'reported', positiveLabel: undefined, at: 'last-token' },
  );
  const omitted = parseStudy(base('corrected').replace('protocol: corrected\n', ''), 's.yaml');
  assert.equal(omitted.protocol, 'corrected');
  assert.deepEqual(Object.keys(PROTOCOL_SETTINGS).sort(), ['corrected', 'official']);
});

test('single settings override the protocol', () => {
  const s = studySettings(
    parseStudy(base('official', '  unlabeledRows: drop\n  rouge: mean\n  labelTokens: standalone\n  positiveLabel: negative'), 's.yaml'));
  assert.deepEqual([s.unlabeledRows, s.rouge, s.labelTokens, s.bos, s.positiveLabel], ['drop', 'mean', 'standalone', 'study-b', 'negative']);
  const study = parseStudy(base('official', '', ', demonstrationPool: training'), 's.yaml');
  const { demonstrationPool, demonstrationSelection } = methodSettingsOf(studySettings(study), study.methods[1]);
  assert.deepEqual([demonstrationPool, demonstrationSelection], ['training', 'first']);
  assert.throws(() => parseStudy(base('offical'), 's.yaml'), /s\.yaml:3: protocol: .*official.*corrected/);
});

test('FTICL: one run per k of the task, demonstrations from the few-shot file (official) or sampled from training (corrected)', () => {
  const official = parseStudy(base('official'), 's.yaml');
  const runs = expandStudy(official).filter((r) => r.method.kind === 'fticl').map((r) => `${r.id} k=${r.shots}`);
  assert.deepEqual(runs,
    ['m--sentiment-2000--fticl-k2 k=2', 'm--sentiment-2000--fticl-k4 k=4', 'm--summary-2000--fticl-k1 k=1', 'm--summary-2000--fticl-k2 k=2']);
  const source = (s: typeof official) => {
    const m = methodSettingsOf(studySettings(s), s.methods[1]);
    return [m.demonstrationPool, m.demonstrationSelection];
  };
  assert.deepEqual(source(official), ['few-shot', 'first']);
  const corrected = parseStudy(base('corrected'), 's.yaml');
  assert.deepEqual(source(corrected), ['training', 'sampled']);
  // A single k keeps the old run name.
  const single = parseStudy(base('corrected').replace('demonstrations: { sentiment: [2, 4], summary: [1, 2] }', 'demonstrations: 2'), 's.yaml');
  assert.ok(expandStudy(single).some((r) => r.id === 'm--sentiment-2000--fticl' && r.shots === 2));
  const missing = parseStudy(base('corrected').replace('summary: [1, 2] ', ''), 's.yaml');
  assert.throws(() => expandStudy(missing), /demonstrations names no list for training set "summary-2000" or its task "summary"/);
});

test('global batch, objective and the every-k grid', () => {
  const study = parseStudy(base('official'), 's.yaml');
  assert.equal(gradAccumOf(study.methods[0]), 8);
  assert.equal(gradAccumOf(study.methods[1]), 1);
  assert.throws(() => parseStudy(base('official').replace('globalBatch: 16', 'globalBatch: 15'), 's.yaml'),
    /globalBatch must be a multiple of batchSize/);
  assert.equal(objectiveOf(study.methods[0], study.training[0]), 'supervised');
  assert.equal(objectiveOf(study.methods[0], { id: 'mnli', data: 'study-a/mnli:train', task: 'study-a' }), 'label-token');
  const s = studySettings(study);
  assert.deepEqual(gridShotsFor(s, 'study-b/inference'), STUDY_B_ICL_SHOTS.inference);
  assert.deepEqual(gridShotsFor(s, 'study-a'), [0]);
  const own = studySettings(parseStudy(base('official', '  shots: { inference: [0, 3] }'), 's.yaml'));
  assert.deepEqual(gridShotsFor(own, 'study-b/inference'), [0, 3]);
});

test('protocol: official changes exactly the settings whose two rows differ in the table, to the official row, on study A and study B files', () => {
  const studyA = (protocol: string) => `
name: a
protocol: ${protocol}
models: [{ id: m, path: models/m }]
training: [{ id: mnli, data: "study-a/mnli:train", task: study-a }]
methods: [{ name: lora, kind: ft, finetune: lora, lr: 1.0e-4, batchSize: 32, globalBatch: 64 }]
evaluation: { control: "study-a/mnli:validation_matched", testSets: ["study-a/mnli:validation_matched", "study-a/rte:train"] }
`;
  const resolved = (text: string) => {
    const study = parseStudy(text, 's.yaml');
    const { written, ...s } = studySettings(study);
    assert.equal(written.size, 0, 'the files write no protocol setting');
    // Everything a run reads from the protocol, each under the table's own name: the study's settings and the method's.
    return { ...s, ...methodSettingsOf(studySettings(study), study.methods.at(-1)!) } as Record<string, unknown>;
  };
  const names = Object.keys(PROTOCOL_SETTING_SPECS) as ProtocolSettingName[];
  const tableDiff = names.filter((k) => PROTOCOL_SETTINGS.official[k] !== PROTOCOL_SETTINGS.corrected[k]);
  // The table itself: each of the settings where the release departs from the corrected protocol differs;
  // the 0-shot prefix is a choice, the same in both.
  for (const k of ['studyBLabelTokens', 'maxGradNorm', 'lossWeighting', 'truncation', 'studyAMnliNeutral', 'gridRunShots', 'demonstrationPool'])
    assert.ok(tableDiff.includes(k as ProtocolSettingName), k);
  assert.ok(!tableDiff.includes('zeroShotPrefix'));
  for (const text of [studyA, (p: string) => base(p)]) {
    const official = resolved(text('official'));
    const corrected = resolved(text('corrected'));
    assert.deepEqual(Object.keys(official).sort(), ['gridShots', 'protocol', ...names].sort(), 'one name per setting, the table\'s');
    const changed = Object.keys(official).filter((k) => JSON.stringify(official[k]) !== JSON.stringify(corrected[k])).sort();
    assert.deepEqual(changed, ['protocol', ...tableDiff].sort());
    for (const k of tableDiff) assert.equal(official[k], PROTOCOL_SETTINGS.official[k], k);
  }
});

test('a method\'s own clipping, loss weighting, truncation and demonstrations win over the protocol', () => {
  const study = parseStudy(base('official', '',
    ', maxGradNorm: 1, lossWeighting: step-tokens, truncation: keep-target, demonstrationPool: training, demonstrationSelection: sampled'), 's.yaml');
  const s = studySettings(study);
  assert.deepEqual(methodSettingsOf(s, study.methods[1]), { maxGradNorm: 1, lossWeighting: 'step-tokens', truncation: 'keep-target',
    demonstrationPool: 'training', demonstrationSelection: 'sampled' });
  assert.deepEqual(methodSettingsOf(s, study.methods[0]), { maxGradNorm: 0, lossWeighting: 'micro-batch-mean', truncation: 'keep-first',
    demonstrationPool: 'few-shot', demonstrationSelection: 'first' });
  const own = studySettings(parseStudy(
    base('official', '  gridRunShots: add-run-k\n  zeroShotPrefix: bos-only\n  studyAMnliNeutral: drop\n  labelTokens: in-context'), 's.yaml'));
  assert.deepEqual([own.gridRunShots, own.zeroShotPrefix, own.studyAMnliNeutral, own.labelTokens, own.studyBLabelTokens],
    ['add-run-k', 'bos-only', 'drop', 'in-context', 'in-context']);
  assert.deepEqual([...own.written].sort(), ['gridRunShots', 'labelTokens', 'studyAMnliNeutral', 'studyBLabelTokens', 'zeroShotPrefix']);
});

test('the trainer\'s options under each protocol: no clipping, micro-batch means and the first 1024 tokens (official, supervised ' +
  'objective only)', () => {
  const official = parseStudy(base('official'), 's.yaml');
  const so = studySettings(official);
  assert.deepEqual(trainerSettingsOf(so, official.methods[0], official.training[1], false),
    { objective: 'supervised', labelTokens: 'in-context', maxGradNorm: 0, lossWeighting: 'micro-batch-mean', truncation: 'keep-first',
      maxLength: 1024 });
  // Study A's label-token objective has no target at the end to cut: no truncation setting reaches its trainer.
  assert.deepEqual(trainerSettingsOf(so, official.methods[0], { id: 'mnli', data: 'study-a/mnli:train', task: 'study-a' }, false),
    { objective: 'label-token', labelTokens: 'in-context', maxGradNorm: 0, lossWeighting: 'micro-batch-mean' });
  const corrected = parseStudy(base('corrected'), 's.yaml');
  assert.deepEqual(trainerSettingsOf(studySettings(corrected), corrected.methods[0], corrected.training[1], false),
    { objective: 'supervised', labelTokens: 'in-context', maxGradNorm: 1, lossWeighting: 'step-tokens' });
});
