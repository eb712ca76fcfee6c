// The study rules of config/settings.ts that a run follows: which prompts and shot counts it is
// evaluated with, where study A's label logits are read, F1's positive class, and its training
// targets, each as the protocol (and the study file's single overrides) decide.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseStudy } from '../../src/config/load.ts';
import { evaluationCellsFor, isStudyAOnly, readingRulesOf, studySettings, trainerSettingsOf } from '../../src/config/settings.ts';
import { STUDY_A_PAD_TO } from '../../src/tasks/index.ts';
import { studyBYaml } from '../support/study-b-yaml.ts';

const study = (protocol: string, evaluation = '') => parseStudy(studyBYaml(protocol, ['{ name: ft, kind: ft, lr: 2.0e-5 }'], evaluation), 's.yaml');

test('evaluation cells: the every-k grid takes the task\'s k and both prompts (and the run\'s k); else the study\'s prompts at the run\'s k', () => {
  const official = study('official');
  const s = studySettings(official);
  assert.deepEqual(evaluationCellsFor(official, s, 3, 'study-b/sentiment'), { prompts: [1, 2], shots: [2, 4, 6, 0] }, 'official: the task\'s k only');
  assert.deepEqual(evaluationCellsFor(official, s, 0, 'study-a'), { prompts: [1], shots: [0] }, 'a set outside study B: 0 shots');
  const own = study('official', '  gridRunShots: add-run-k');
  assert.deepEqual(evaluationCellsFor(own, studySettings(own), 3, 'study-b/sentiment'), { prompts: [1, 2], shots: [2, 4, 6, 0, 3] });
  assert.deepEqual(evaluationCellsFor(own, studySettings(own), 4, 'study-b/sentiment').shots, [2, 4, 6, 0], 'a k already listed is not repeated');
  const corrected = study('corrected', '  prompts: [1, 2]');
  assert.deepEqual(evaluationCellsFor(corrected, studySettings(corrected), 2, 'study-b/sentiment'), { prompts: [1, 2], shots: [2] });
  assert.deepEqual(evaluationCellsFor(corrected, studySettings(corrected), 0, 'study-b/sentiment'), { prompts: [1, 2], shots: undefined });
});

test('study A\'s reading rules apply only when every test set (or the task) is study A\'s', () => {
  const official = study('official');
  const s = studySettings(official);
  assert.equal(isStudyAOnly(official, ['study-a', 'study-a']), true);
  assert.equal(isStudyAOnly(official, ['study-a', 'study-b/sentiment']), false);
  assert.deepEqual(readingRulesOf(s, true), { padTo: STUDY_A_PAD_TO, positiveLabel: 'No' });
  assert.deepEqual(readingRulesOf(s, false), { positiveLabel: undefined });
  const corrected = studySettings(study('corrected'));
  assert.deepEqual(readingRulesOf(corrected, true), { positiveLabel: undefined }, 'corrected reads the last token and takes the first label');
  assert.deepEqual(readingRulesOf(studySettings(study('corrected', '  positiveLabel: Yes')), false), { positiveLabel: 'Yes' });
});

test('training targets: supervised trains generation, label-token the in-context token (llama2-ids are evaluation-only)', () => {
  const s = study('official', '  labelTokens: llama2-ids');
  const settings = studySettings(s);
  const [method] = s.methods;
  const targets = (m: typeof method, studyAOnly: boolean) => {
    const { objective, labelTokens, padTo } = trainerSettingsOf(settings, m, s.training[0], studyAOnly);
    return { objective, labelTokens, ...(padTo === undefined ? {} : { padTo }) };
  };
  assert.deepEqual(targets(method, false), { objective: 'supervised', labelTokens: 'in-context' });
  const labelToken = { ...method, objective: 'label-token' as const };
  assert.deepEqual(targets(labelToken, true), { objective: 'label-token', labelTokens: 'in-context', padTo: STUDY_A_PAD_TO });
});
