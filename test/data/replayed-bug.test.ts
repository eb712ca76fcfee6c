// Study A's replayed MNLI bug as data: the registry names it on study A's MNLI
// set only, and the spec that keeps the rows labels them with the release's gold (evaluation) or
// their own label (training). The rows are a copy in GLUE MNLI's columns (premise, hypothesis,
// label 0/1/2, idx): the parquet itself comes from the hub, which this machine cannot reach.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { keepingBugRows, loadDataSet, readRegistry, registrySpec, replayedBugOf } from '../../src/data/index.ts';
import { tempDir, write } from './helpers.ts';

test('only study A\'s MNLI carries the replayed neutral bug: kept with gold "Yes" (evaluation) or as "neutral" (training, token id 1)', async (t) => {
  const withBug = Object.entries(readRegistry().sets).filter(([, s]) => s.replayedBug).map(([id]) => id);
  assert.deepEqual(withBug, ['study-a/mnli']);
  const bug = replayedBugOf('study-a/mnli:train')!;
  assert.deepEqual([bug.label, bug.gold, bug.trainTokenId], ['neutral', 'Yes', 1]);
  assert.match(bug.source, /NLIDataset\.py:168-170.*utils\.py:40-41/);
  for (const id of ['study-a/snli:test', 'study-a/anli:test_r3', 'study-b/inference/multinli:test']) assert.equal(replayedBugOf(id), undefined, id);

  const dir = tempDir(t);
  const rows = [
    { premise: 'A man sleeps.', hypothesis: 'A man rests.', label: 0, idx: 0 },
    { premise: 'A dog runs.', hypothesis: 'The dog is brown.', label: 1, idx: 1 },
    { premise: 'A girl sings.', hypothesis: 'Nobody sings.', label: 2, idx: 2 },
    { premise: 'Two men talk.', hypothesis: 'They are friends.', label: 1, idx: 3 },
  ];
  write(dir, 'mnli.jsonl', rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const hub = registrySpec('study-a/mnli:validation_matched', { source: 'hub' }).spec;
  const { hub: _hub, ...mapping } = hub;
  const local = { ...mapping, path: join(dir, 'mnli.jsonl'), format: 'jsonl' as const };
  const labels = async (spec: Parameters<typeof loadDataSet>[0]) => (await loadDataSet(spec)).examples.map((e) => e.label);
  assert.deepEqual(await labels(local), ['Yes', 'No'], 'the binarised set drops neutral');
  assert.deepEqual(await labels(keepingBugRows(local, bug, 'gold')), ['Yes', 'Yes', 'No', 'Yes'], 'neutral scored as "Yes" (utils.py:40-41)');
  assert.deepEqual(await labels(keepingBugRows(local, bug, 'own')), ['Yes', 'neutral', 'No', 'neutral']);
});
