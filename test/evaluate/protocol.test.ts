// Study B's protocol rows on its real files (skipped when ../shared is absent): the first 250 rows with
// "-" gold labels counted wrong (official) or dropped and said so (corrected), the BOS rule, the
// every-k-and-prompt grid, FTICL demonstrations from the in-domain few-shot file, and the ROUGE
// bootstrap median next to the mean on real references.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { evaluateGrid, planCells, promptVariants, resolveTestSets } from '../../src/evaluate/index.ts';
import { ResultStore } from '../../src/store/result-store.ts';
import { parseStudy } from '../../src/config/load.ts';
import { expandStudy } from '../../src/config/expand.ts';
import { gridShotsFor, studySettings } from '../../src/config/settings.ts';
import { fticlDemonstrations, loadTrainingExamples } from '../../src/pipeline/training-data.ts';
import { bootstrapRouge, meanRougeScores, RougeScorer } from '../../src/metrics/index.ts';
import { demonstrationsFor, studyBTask, trainingPieces, STUDY_B_ICL_SHOTS } from '../../src/tasks/index.ts';
import { sharedDir, tempDir } from './helpers.ts';

const dataDir = process.env.GENSTUDY_DATA ? path.resolve(process.env.GENSTUDY_DATA) : path.join(sharedDir, 'data');
const golden = path.join(sharedDir, 'golden/engine/gpt2');
const haveData = existsSync(path.join(dataDir, 'ft-generalisation'));
const SKIP = `needs ${dataDir}/ft-generalisation (study B's released data), which is absent`;
const raw = (rel: string) => JSON.parse(readFileSync(path.join(dataDir, 'ft-generalisation', rel), 'utf8')) as Record<string, string>[];

test('first 250 rows: official keeps the "-" rows and counts them wrong; corrected drops them and says how many', async (t) => {
  if (!haveData) { t.skip(SKIP); return; }
  const file = raw('inference/multinli_test_500.json');
  const dashes = file.slice(0, 250).filter((r) => r.output === '-').length;
  assert.ok(dashes > 0, 'the first 250 rows of multinli hold "-" rows');
  const [official] = await resolveTestSets(['study-b/inference/multinli:test'], { dataDir, limit: 250, unlabeledRows: 'wrong' });
  assert.equal(official.examples.length, 250);
  assert.deepEqual(official.examples.map((e) => e.id), file.slice(0, 250).map((r, i) => String(r.idx ?? i)));
  assert.equal(official.examples.filter((e) => e.label === '-').length, dashes);
  assert.deepEqual(official.unlabeled, ['-']);
  const [corrected] = await resolveTestSets(['study-b/inference/multinli:test'], { dataDir, limit: 250 });
  assert.equal(corrected.examples.length, 250);
  assert.equal(corrected.examples.filter((e) => e.label === '-').length, 0);
  assert.deepEqual(corrected.spec.dropped, [{ reason: 'label "-" is in dropLabels', count: dashes }]);
  assert.equal(corrected.spec.rowsRead, 250 + dashes);
  assert.notEqual(official.contentHash, corrected.contentHash);
});

test('first rows scored with a real model (official): a "-" row is a wrong prediction and counts in the denominator', async (t) => {
  if (!haveData) { t.skip(SKIP); return; }
  if (!existsSync(golden)) { t.skip(`needs ${golden} (the golden GPT-2 folder), which is absent`); return; }
  const file = raw('inference/multinli_test_500.json');
  const [small] = await resolveTestSets(['study-b/inference/multinli:test'], { dataDir, limit: 30, unlabeledRows: 'wrong' });
  assert.equal(small.examples.filter((e) => e.label === '-').length, file.slice(0, 30).filter((r) => r.output === '-').length);
  const storePath = path.join(tempDir(), 'r.sqlite');
  await evaluateGrid(
    { storePath, run: 'gpt2', checkpoints: [{ step: 0, dir: golden }], testSets: [small], variants: promptVariants(), bos: 'study-b' });
  const store = ResultStore.open(storePath, { readonly: true });
  try {
    const preds = store.predictions('gpt2', 0, small.id, '');
    assert.equal(preds.length, 30);
    const unlabeled = preds.filter((p) => p.gold === '-');
    assert.ok(unlabeled.length > 0 && unlabeled.every((p) => p.prediction !== '-'));
    const acc = store.scores({ run: 'gpt2' }).find((s) => s.metric === 'accuracy')!;
    assert.equal(acc.n, 30);
    assert.equal(acc.value, preds.filter((p) => p.prediction === p.gold).length / 30);
  } finally {
    store.close();
  }
});

test('BOS: study B\'s "<s> " 0-shot prefix and special tokens (official) against the tokenizer\'s own BOS (corrected)', async (t) => {
  if (!haveData) { t.skip(SKIP); return; }
  const sets = await resolveTestSets(['study-b/sentiment/sst2:test', 'study-b/summary/xsum:test'], { dataDir, limit: 3 });
  const variants = promptVariants(undefined, [0, 2]);
  const official = await planCells(sets, variants, { bos: 'study-b' });
  const corrected = await planCells(sets, variants, {});
  for (const [cell, other] of official.map((c, i) => [c, corrected[i]] as const)) {
    const p = cell.payloads[0];
    const q = other.payloads[0];
    const text = p.mode === 'first-token' ? p.context : p.mode === 'generate' ? p.prompt : '';
    const textQ = q.mode === 'first-token' ? q.context : q.mode === 'generate' ? q.prompt : '';
    assert.equal(text.startsWith('<s> '), cell.variant.shots === 0, `${cell.set.id} ${cell.variant.name}`);
    assert.ok(!textQ.startsWith('<s>'));
    // Classification: encoded without special tokens (one BOS from the text at 0 shots, none at k);
    // generation through vLLM: with them. Corrected: always with them.
    if (p.mode === 'first-token') assert.equal(p.addSpecialTokens, false);
    if (p.mode === 'generate') assert.equal(p.addSpecialTokens, true);
    if (q.mode !== 'full-word') assert.equal(q.addSpecialTokens, true);
  }
});

test('the every-k-and-prompt grid: every k of the test set\'s task with both prompts, demonstrations the first k of its few-shot file', async (t) => {
  if (!haveData) { t.skip(SKIP); return; }
  const study = parseStudy(`
name: s
protocol: official
models: [{ id: m, path: m }]
training: [{ id: sentiment-2000, data: "study-b/sentiment/amazon:train-2000", task: study-b/sentiment }]
methods: [{ name: base, kind: base }]
evaluation: { testSets: [study-b/inference/rte:test] }
`, 's.yaml');
  const settings = studySettings(study);
  const [rte] = await resolveTestSets(['study-b/inference/rte:test'], { dataDir, limit: 4 });
  const ks = gridShotsFor(settings, rte.taskPreset);
  assert.deepEqual(ks, STUDY_B_ICL_SHOTS.inference);
  const cells = await planCells([rte], promptVariants([1, 2], [...ks]), { bos: settings.bos });
  assert.deepEqual(cells.map((c) => c.variant.name), ['prompt-1/3-shot', 'prompt-1/5-shot', 'prompt-1/7-shot', 'prompt-1/0-shot', 'prompt-2/3-shot',
    'prompt-2/5-shot', 'prompt-2/7-shot', 'prompt-2/0-shot']);
  const few = raw('inference/few_shot/rte_few_shot.json');
  const seven = cells[2];
  assert.match(seven.demonstrations!, /^first 7 of study-b\/inference\/rte:few-shot/);
  const ctx = seven.payloads[0].mode === 'first-token' ? seven.payloads[0].context : '';
  // evaluate_cross.py: map_function[task].format_map(tmp) + tmp["output"] + "\n\n" for tmp in template[:shot]
  const task = studyBTask('inference', 1);
  const expected = few.slice(0, 7).map((r) =>
    task.template.replace('{input_1}', r.input_1).replace('{input_2}', r.input_2) + r.output + '\n\n').join('');
  assert.ok(ctx.startsWith(expected));
});

test('FTICL: the first k of the in-domain few-shot file for every example (official), k sampled from the training rows (corrected)', async (t) => {
  if (!haveData) { t.skip(SKIP); return; }
  const text = (protocol: string) => `
name: s
protocol: ${protocol}
models: [{ id: m, path: m }]
training: [{ id: sentiment-2000, data: "study-b/sentiment/amazon:train-2000", task: study-b/sentiment }]
methods: [{ name: fticl, kind: fticl, lr: 1.0e-5, demonstrations: { sentiment: [2, 4] } }]
evaluation: { testSets: [study-b/sentiment/sst2:test] }
`;
  const few = raw('sentiment/few_shot/amazon_few_shot.json');
  for (const protocol of ['official', 'corrected']) {
    const study = parseStudy(text(protocol), 's.yaml');
    const runs = expandStudy(study);
    assert.deepEqual(runs.map((r) => r.shots), [2, 4]);
    const training = (await loadTrainingExamples(runs[1].trainingSet, { studyDir: '.', dataDir })).examples.slice(0, 20);
    const { pool, selection } = await fticlDemonstrations(study, runs[1], training, dataDir);
    const task = studyBTask('sentiment', 1);
    const pieces = trainingPieces(task, training, { demonstrations: demonstrationsFor(task, pool, selection) });
    if (protocol === 'official') {
      // train_ptune.py: the same context (first 4 rows of amazon_few_shot.json) before every example.
      const context = few.slice(0, 4).map((r) => `### Input:\n${r.input}\n### Sentiment:${r.output}\n\n`).join('');
      for (const p of pieces) assert.ok(p.context.startsWith(context));
    } else {
      assert.equal(selection.kind, 'sampled');
      const contexts = new Set(pieces.map((p) => p.context.slice(0, p.context.lastIndexOf('### Input:'))));
      assert.ok(contexts.size > 10, 'demonstrations differ between examples');
      pieces.forEach((p, i) => assert.ok(!p.context.slice(0, p.context.lastIndexOf('### Input:')).includes(training[i].fields.input)));
    }
  }
});

test('ROUGE on real references: the bootstrap median (official) sits near the per-example mean (corrected) and is not it', async (t) => {
  if (!haveData) { t.skip(SKIP); return; }
  const rows = raw('summary/xsum_test_500.json').slice(0, 250);
  // A fixed "system": the first 25 words of each input.
  const scorer = new RougeScorer();
  const scores = rows.map((r) => scorer.score(r.input.split(/\s+/).slice(0, 25).join(' '), r.output));
  const mean = meanRougeScores(scores).rougeL.f;
  const mid = bootstrapRouge(scores, { seed: 0 }).rougeL.mid.f;
  assert.ok(Math.abs(mid - mean) < 0.005, `${mid} vs ${mean}`);
  assert.notEqual(mid, mean);
});

test('study A\'s reading position goes through the grid: stored log-probs are the engine\'s padded reading', async (t) => {
  if (!existsSync(path.join(dataDir, 'nli')) || !existsSync(golden)) { t.skip(`needs ${dataDir}/nli and ${golden}`); return; }
  const { loadModel } = await import('../../src/engine/index.ts');
  const { buildFirstTokenRequests, studyATask } = await import('../../src/tasks/index.ts');
  const [rte] = await resolveTestSets(['study-a/rte:train'], { dataDir, limit: 4 });
  const storePath = path.join(tempDir(), 'a.sqlite');
  await evaluateGrid({ storePath, run: 'gpt2', checkpoints: [{ step: 0, dir: golden }], testSets: [rte], variants: promptVariants(), padTo: 128,
    positiveLabel: 'No' });
  const store = ResultStore.open(storePath, { readonly: true });
  const preds = new Map(store.predictions('gpt2', 0, rte.id, '').map((p) => [p.exampleId, p]));
  const f1 = store.scores({ run: 'gpt2' }).find((s) => s.metric === 'f1')!;
  store.close();
  const reqs = buildFirstTokenRequests(studyATask(), rte.examples);
  const model = await loadModel(golden);
  try {
    const padded = await model.firstTokenLogprobs(reqs.map((r) => r.context), reqs[0].candidates, { padTo: 128 });
    reqs.forEach((r, i) => {
      const lp = preds.get(r.exampleId)!.detail!.logprobs as Record<string, number>;
      assert.ok(Math.abs(lp.Yes - padded[i][0]) < 1e-5 && Math.abs(lp.No - padded[i][1]) < 1e-5);
    });
  } finally {
    model.dispose();
  }
  const positives = [...preds.values()];
  const tp = positives.filter((p) => p.prediction === 'No' && p.gold === 'No').length;
  const fp = positives.filter((p) => p.prediction === 'No' && p.gold !== 'No').length;
  const fn = positives.filter((p) => p.prediction !== 'No' && p.gold === 'No').length;
  assert.equal(f1.value, tp === 0 ? 0 : (2 * tp) / (2 * tp + fp + fn), 'F1 with "No" as the positive class');
});

test('official label tokens: study B\'s classification cells read the release\'s Llama-2 ids, study A\'s cells in the same grid their ' +
  'in-context token', async (t) => {
  if (!haveData) { t.skip(SKIP); return; }
  const sets = await resolveTestSets(['study-b/inference/rte:test', 'study-a/rte:train', 'study-b/summary/xsum:test'], { dataDir, limit: 2 });
  const text = (protocol: string) =>
    `name: s\nprotocol: ${protocol}\nmodels: [{ id: m, path: m }]\ntraining: [{ id: t, data: "study-a/rte:train", task: study-a }]\n` +
    'methods: [{ name: b, kind: base }]\nevaluation: { testSets: ["study-a/rte:train"] }\n';
  for (const protocol of ['official', 'corrected']) {
    const s = studySettings(parseStudy(text(protocol), 's.yaml'));
    // Prompt-2 for study B's sets (the NLI prompt whose ids in-context cannot give), the one prompt for study A's.
    const cells = await planCells(sets, (set) => promptVariants(set.taskPreset === 'study-a' ? [1] : [2]),
      { labelTokens: s.labelTokens, studyBLabelTokens: s.studyBLabelTokens });
    const [b, a] = cells.map((c) => c.payloads[0]);
    assert.ok(b.mode === 'first-token' && a.mode === 'first-token');
    // evaluate_cross.py:215-227: NLI's 296 / 17821 / 9996 ("ent" after the prompt's lone "▁"), not in-context's "▁ent".
    assert.equal(b.labelTokens, protocol === 'official' ? 'llama2-ids' : 'in-context', protocol);
    assert.deepEqual(b.fixedTokens?.ids, protocol === 'official' ? [296, 17821, 9996] : undefined);
    assert.equal(a.labelTokens, 'in-context');
    assert.equal(cells[2].payloads[0].mode, 'generate');
  }
});

test('the 0-shot "<s> " prefix: as tokenized, Llama-2\'s tokenizer.json gives BOS then a lone "▁" (29871); bos-only gives BOS then ' +
  'the prompt', async (t) => {
  if (!haveData) { t.skip(SKIP); return; }
  const { loadTokenizer } = await import('../../src/engine/index.ts');
  const { llama2Dir } = await import('../support/llama-tokenizers.ts');
  const tok = loadTokenizer(await llama2Dir());
  const sets = await resolveTestSets(['study-b/sentiment/sst2:test'], { dataDir, limit: 1 });
  const contextOf = async (zeroShotPrefix?: 'as-tokenized' | 'bos-only') => {
    const [cell] = await planCells(sets, promptVariants([1]), { bos: 'study-b', ...(zeroShotPrefix ? { zeroShotPrefix } : {}) });
    const p = cell.payloads[0];
    assert.ok(p.mode === 'first-token' && p.addSpecialTokens === false);
    return p.context;
  };
  const plain = (await planCells(sets, promptVariants([1]), {}))[0].payloads[0];
  const prompt = plain.mode === 'first-token' ? plain.context : '';
  const promptIds = tok.encode(prompt, { addSpecialTokens: false });
  const asTokenized = tok.encode(await contextOf(), { addSpecialTokens: false });
  assert.deepEqual(asTokenized, [1, 29871, ...promptIds]);
  assert.equal(await contextOf(), await contextOf('as-tokenized'));
  assert.deepEqual(tok.encode(await contextOf('bos-only'), { addSpecialTokens: false }), [1, ...promptIds]);
});
