import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { loadModel } from '../../src/engine/index.ts';
import { bootstrapRouge, corpusBleu, meanRougeScores, rougeScoreBatch, ROUGE_TYPES } from '../../src/metrics/index.ts';
import { ResultStore } from '../../src/store/result-store.ts';
import { postprocessGeneration } from '../../src/tasks/index.ts';
import { sharedDir, tempDir } from './helpers.ts';
import { genstudy } from '../support/genstudy-in-process.ts';

const golden = path.join(sharedDir, 'golden/engine/gpt2');

const ROWS = [
  { id: 'g1', input: 'The cat sat on the mat and looked at the door.', output: 'A cat sat on a mat.' },
  { id: 'g2', input: 'Once upon a time, there was a little girl who lived in a village.', output: 'A girl lived in a village.' },
  { id: 'g3', input: 'The quick brown fox jumps over the lazy dog.', output: 'The fox jumps over the dog.' },
  { id: 'g4', input: 'She opened the door and smiled at the people outside.', output: 'She smiled.' },
  { id: 'g5', input: 'In the year 2020 there were many changes in the world.', output: 'The world changed in 2020.' },
];

const cli = (args: string[]) => genstudy(['evaluate', ...args]);

test('generation on the golden GPT-2: stored texts are the engine\'s, ROUGE and exact match follow rouge-score', async (t) => {
  if (!fs.existsSync(path.join(golden, 'config.json'))) return t.skip(`needs ${golden} (the shared golden models), which is absent`);
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'gen.jsonl'), ROWS.map((r) => JSON.stringify(r)).join('\n') + '\n');
  fs.writeFileSync(path.join(dir, 'gen.yaml'), 'name: golden-gen\npath: gen.jsonl\nid: id\nfields:\n  input: input\ntarget: output\n');
  fs.writeFileSync(path.join(dir, 'task.yaml'), [
    'kind: generate', 'name: summarise', 'template: "Text: {input}\\nSummary:"', 'maxNewTokens: 12',
    'postprocess:', '  strip: python', '  cutAt: ["\\n\\n"]', '',
  ].join('\n'));
  const store = path.join(dir, 'results.sqlite');
  const common = ['--test-set', path.join(dir, 'gen.yaml'), '--task', path.join(dir, 'task.yaml'), '--store', store];
  const first = await cli(['--model', golden, '--run', 'golden-gpt2', ...common, '--format', 'json']);
  assert.equal(first.code, 0, first.stderr);
  const summary = JSON.parse(first.stdout) as { computed: number; scores: { metric: string; value: number }[] };
  assert.equal(summary.computed, ROWS.length);

  const model = await loadModel(golden);
  const direct = await model.generate(ROWS.map((r) => ({ prompt: `Text: ${r.input}\nSummary:`, maxNewTokens: 12 })));
  model.dispose();
  const rs = ResultStore.open(store, { readonly: true });
  const preds = rs.predictions('golden-gpt2', 0, 'golden-gen');
  const scores = rs.scores({ run: 'golden-gpt2' });
  rs.close();
  const byId = new Map(preds.map((p) => [p.exampleId, p]));
  const cut = ROWS.map((r, i) => {
    const p = byId.get(r.id)!;
    assert.equal(p.detail!.raw, direct[i], `${r.id}: the engine's text, stored as it came`);
    assert.equal(p.prediction, postprocessGeneration(direct[i], { strip: 'python', cutAt: ['\n\n'] }));
    assert.equal(p.gold, r.output);
    return p.prediction!;
  });
  const mean = meanRougeScores(rougeScoreBatch(ROWS.map((r, i) => ({ prediction: cut[i], reference: r.output }))));
  const value = (m: string) => scores.find((s) => s.metric === m)?.value;
  for (const type of ROUGE_TYPES) {
    for (const k of ['p', 'r', 'f'] as const) assert.equal(value(`${type}_${k}`), mean[type][k], `${type}_${k}`);
  }
  assert.equal(value('exact_match'), cut.filter((c, i) => c === ROWS[i].output).length / ROWS.length);
  assert.equal(value('empty_rate'), cut.filter((c) => c.trim() === '').length / ROWS.length);
  // The bootstrap mids and corpus BLEU come from the same texts (their goldens: test/metrics/bootstrap-bleu.test.ts).
  const refs = ROWS.map((r) => r.output);
  const boot = bootstrapRouge(rougeScoreBatch(ROWS.map((r, i) => ({ prediction: cut[i], reference: r.output }))), { seed: 0 });
  for (const type of ROUGE_TYPES) assert.equal(value(`${type}_mid_f`), boot[type].mid.f, `${type}_mid_f`);
  assert.equal(value('bleu'), corpusBleu(cut, refs).score);
  assert.equal(scores.length, 4 * 4 + 3);

  // ROUGE with the stemmer is a new metric from the cached texts: no model work.
  const stemmed = await cli(['--model', golden, '--run', 'golden-gpt2', ...common, '--rouge-stemmer']);
  assert.equal(stemmed.code, 0, stemmed.stderr);
  assert.match(stemmed.stderr, /0 from the model \(0 models loaded, 0 engine calls\), 5 from the cache/);
  assert.match(stemmed.stdout, /rougeL_f/);
  // The run in the store is enough to evaluate it again: its checkpoint folder is recorded.
  const again = await cli(['--run', 'golden-gpt2', ...common]);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stderr, /0 from the model .* 5 from the cache/);
  const after = ResultStore.open(store, { readonly: true });
  const metrics = new Set(after.scores({ run: 'golden-gpt2' }).map((s) => s.metric));
  after.close();
  assert.ok(metrics.has('rougeLsum_stem_f') && metrics.has('rougeLsum_f'));
});
