// The protocol switch: one study-file line selects every replay setting; single settings override it;
// FTICL's per-task k, the global batch and the objective resolve as docs/studies.md says.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseStudy } from '../../src/config/load.ts';
import { expandStudy } from '../../src/config/expand.ts';
import { demonstrationSource, gradAccumOf, gridShotsFor, objectiveOf, studySettings } from '../../src/config/settings.ts';
import { PROTOCOL_SETTINGS, STUDY_B_FTICL_SHOTS, STUDY_B_ICL_SHOTS } from '../../src/tasks/index.ts';

const base = (protocol: string, evaluation = '', method = '') => `
name: s
protocol: ${protocol}
models: [{ id: m, path: models/m }]
training:
  - { id: sentiment-2000, data: "study-b/sentiment/amazon:train-2000", task: study-b/sentiment }
  - { id: summary-2000, data: "study-b/summary/xsum:train-2000", task: study-b/summary }
methods:
  - { name: ft, kind: ft, lr: 2.0e-5, batchSize: 2, globalBatch: 16 }
  - { name: fticl, kind: fticl, lr: 2.0e-5, demonstrations: { sentiment: [2, 4], summary: [1, 2] }${method} }
evaluation:
  testSets: [study-b/sentiment/sst2:test]
${evaluation}
`;

test('protocol: official selects every replay setting at once; corrected is the default', () => {
  const official = studySettings(parseStudy(base('official'), 's.yaml'));
  assert.equal(official.protocol, 'official');
  assert.deepEqual(
    { labelTokens: official.labelTokens, bos: official.bos, unlabeledRows: official.unlabeledRows, rouge: official.rouge, grid: official.grid, studyA: official.studyAPositiveLabel },
    { labelTokens: 'in-context', bos: 'study-b', unlabeledRows: 'wrong', rouge: 'bootstrap-mid', grid: 'every-k-and-prompt', studyA: 'No' },
  );
  assert.equal(official.readingPosition, 'padded-128');
  assert.equal(studySettings(parseStudy(base('official', '  readingPosition: last-token'), 's.yaml')).readingPosition, 'last-token');
  const corrected = studySettings(parseStudy(base('corrected'), 's.yaml'));
  assert.deepEqual(
    { bos: corrected.bos, unlabeledRows: corrected.unlabeledRows, rouge: corrected.rouge, grid: corrected.grid, studyA: corrected.studyAPositiveLabel, at: corrected.readingPosition },
    { bos: 'tokenizer', unlabeledRows: 'drop', rouge: 'mean', grid: 'reported', studyA: undefined, at: 'last-token' },
  );
  const omitted = parseStudy(base('corrected').replace('protocol: corrected\n', ''), 's.yaml');
  assert.equal(omitted.protocol, 'corrected');
  assert.deepEqual(Object.keys(PROTOCOL_SETTINGS).sort(), ['corrected', 'official']);
});

test('single settings override the protocol', () => {
  const s = studySettings(parseStudy(base('official', '  unlabeledRows: drop\n  rouge: mean\n  labelTokens: standalone\n  positiveLabel: negative'), 's.yaml'));
  assert.deepEqual([s.unlabeledRows, s.rouge, s.labelTokens, s.bos, s.positiveLabel], ['drop', 'mean', 'standalone', 'study-b', 'negative']);
  const study = parseStudy(base('official', '', ', demonstrationPool: training'), 's.yaml');
  assert.deepEqual(demonstrationSource(study, study.methods[1]), { pool: 'training', selection: 'first' });
  assert.throws(() => parseStudy(base('offical'), 's.yaml'), /s\.yaml:3: protocol: .*official.*corrected/);
});

test('FTICL: one run per k of the task, demonstrations from the few-shot file (official) or sampled from training (corrected)', () => {
  const official = parseStudy(base('official'), 's.yaml');
  const runs = expandStudy(official).filter((r) => r.method.kind === 'fticl').map((r) => `${r.id} k=${r.shots}`);
  assert.deepEqual(runs, ['m--sentiment-2000--fticl-k2 k=2', 'm--sentiment-2000--fticl-k4 k=4', 'm--summary-2000--fticl-k1 k=1', 'm--summary-2000--fticl-k2 k=2']);
  assert.deepEqual([...STUDY_B_FTICL_SHOTS.sentiment].sort(), [2, 4]);
  assert.deepEqual(demonstrationSource(official, official.methods[1]), { pool: 'few-shot', selection: 'first' });
  const corrected = parseStudy(base('corrected'), 's.yaml');
  assert.deepEqual(demonstrationSource(corrected, corrected.methods[1]), { pool: 'training', selection: 'sampled' });
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
  assert.throws(() => parseStudy(base('official').replace('globalBatch: 16', 'globalBatch: 15'), 's.yaml'), /globalBatch must be a multiple of batchSize/);
  assert.equal(objectiveOf(study.methods[0], study.training[0]), 'supervised');
  assert.equal(objectiveOf(study.methods[0], { id: 'mnli', data: 'study-a/mnli:train', task: 'study-a' }), 'label-token');
  const s = studySettings(study);
  assert.deepEqual(gridShotsFor(s, 'study-b/inference'), STUDY_B_ICL_SHOTS.inference);
  assert.deepEqual(gridShotsFor(s, 'study-a'), [0]);
  const own = studySettings(parseStudy(base('official', '  shots: { inference: [0, 3] }'), 's.yaml'));
  assert.deepEqual(gridShotsFor(own, 'study-b/inference'), [0, 3]);
});
