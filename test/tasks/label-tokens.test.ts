// The label token study B scored, chosen by rule rather than hard-coded: with Llama-2's tokenizer, the
// first token of each label word in context (encode(prompt + label) after encode(prompt), as
// lm-evaluation-harness splits a pair) is exactly the id evaluate_cross.py hard-coded (target_ids),
// on the real study-B prompts; the standalone word is another token ("▁positive"). Also: the
// classification training targets, with the label-token objective and with study B's supervised one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadTokenizer } from '../../src/engine/index.ts';
import { encodeFirstToken } from '../../src/engine/hf/requests.ts';
import { loadRegistered } from '../../src/data/index.ts';
import { encodeForTraining } from '../../src/train/sequences.ts';
import {
  buildFirstTokenRequests, STUDY_B_LABELS, STUDY_B_LLAMA2_TARGET_IDS, STUDY_B_LLAMA2_TARGET_PIECES, studyBTask, trainingPieces,
  type ClassifyTaskSpec, type StudyBTask,
} from '../../src/tasks/index.ts';
import type { Example } from '../../src/types.ts';
import { llama2Dir, llamaTokenizerJs, shippedLlamaFamilyDir } from '../support/llama-tokenizers.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dataDir = process.env.GENSTUDY_DATA ? path.resolve(process.env.GENSTUDY_DATA) : path.resolve(repoRoot, '../shared/data');
const haveData = existsSync(path.join(dataDir, 'ft-generalisation'));
const NO_DATA = `${dataDir}/ft-generalisation is absent`;
// Building the 32000-piece tokenizer takes seconds: once per file.
let llama2Tok: ReturnType<typeof loadTokenizer> | undefined;
const llama2 = async () => (llama2Tok ??= loadTokenizer(await llama2Dir()));

const CLASSIFY_SETS: Record<'sentiment' | 'detection' | 'inference', string[]> = {
  sentiment: ['study-b/sentiment/amazon:test', 'study-b/sentiment/amazonfood:test', 'study-b/sentiment/sst2:test', 'study-b/sentiment/yelp:test'],
  detection: ['study-b/detection/paws:test', 'study-b/detection/qqp:test', 'study-b/detection/stsb:test'],
  inference: ['study-b/inference/multinli:test', 'study-b/inference/multinli2:test', 'study-b/inference/rte:test', 'study-b/inference/gptnli:test'],
};

async function rows(id: string, n: number): Promise<Example[]> {
  return (await loadRegistered(id, { dataDir, limit: n })).examples;
}

test('the assembled Llama-2 tokenizer.json encodes real study-B prompts as llama-tokenizer-js does', async (t) => {
  if (!haveData) { t.skip(NO_DATA); return; }
  const tok = await llama2();
  const lt = await llamaTokenizerJs();
  let checked = 0;
  for (const [task, ids] of Object.entries(CLASSIFY_SETS)) {
    for (const id of ids) {
      for (const prompt of [1, 2] as const) {
        const spec = studyBTask(task as StudyBTask, prompt) as ClassifyTaskSpec;
        for (const req of buildFirstTokenRequests(spec, await rows(id, 15))) {
          for (const s of [req.context, req.context + spec.labels[0]]) {
            assert.deepEqual(tok.encode(s, { addSpecialTokens: false }), lt.encode(s, false, true), JSON.stringify(s.slice(-60)));
            checked++;
          }
        }
      }
    }
  }
  assert.ok(checked >= 600, `only ${checked} strings compared`);
});

test('Llama-2: the in-context first token of every study-B label word is evaluate_cross.py\'s target id', async (t) => {
  if (!haveData) { t.skip(NO_DATA); return; }
  const tok = await llama2();
  let checked = 0;
  for (const [task, ids] of Object.entries(CLASSIFY_SETS) as [keyof typeof CLASSIFY_SETS, string[]][]) {
    const official = STUDY_B_LLAMA2_TARGET_IDS[task]!;
    const spec = studyBTask(task, 1) as ClassifyTaskSpec;
    const standalone = spec.labels.map((l) => tok.encode(l, { addSpecialTokens: false })[0]);
    // The standalone word is the word-initial piece ("▁positive"), never the official token.
    standalone.forEach((s, j) => assert.notEqual(s, official[j], `${task}: standalone ${spec.labels[j]}`));
    for (const id of ids) {
      // Prompt-1 as in the paper's tables, with and without study B's 0-shot "<s> " prefix.
      for (const join of [{ separator: '\n\n', zeroShotPrefix: '<s> ' }, { separator: '\n\n', zeroShotPrefix: '' }]) {
        for (const req of buildFirstTokenRequests(spec, await rows(id, 25), { join })) {
          const inContext = encodeFirstToken(tok, req.context, req.candidates, { labelTokens: 'in-context', addSpecialTokens: false }, 4096);
          assert.deepEqual(inContext.candidates, [...official], `${id} ${req.exampleId}`);
          assert.deepEqual(inContext.context, tok.encode(req.context, { addSpecialTokens: false }).slice(-4096));
          const alone = encodeFirstToken(tok, req.context, req.candidates, { labelTokens: 'standalone', addSpecialTokens: false }, 4096);
          assert.deepEqual(alone.candidates, standalone);
          checked++;
        }
      }
    }
  }
  assert.ok(checked >= 500, `only ${checked} contexts checked`);
});

test('Llama-2, Prompt-2: the official ids hold except for NLI, whose prompt ends in a space', async (t) => {
  if (!haveData) { t.skip(NO_DATA); return; }
  const tok = await llama2();
  for (const task of ['sentiment', 'detection'] as const) {
    const spec = studyBTask(task, 2) as ClassifyTaskSpec;
    for (const req of buildFirstTokenRequests(spec, await rows(CLASSIFY_SETS[task][0], 20))) {
      assert.deepEqual(encodeFirstToken(tok, req.context, req.candidates, { addSpecialTokens: false }, 4096).candidates,
        [...STUDY_B_LLAMA2_TARGET_IDS[task]!]);
    }
  }
  // "The relation is " + "entailment": the harness moves the space onto the label, so the model
  // reads the prompt without its final "▁" and the label's first token is "▁ent"; the official code
  // read after the lone "▁" and scored "ent" (296), which no split of the string yields.
  const spec = studyBTask('inference', 2) as ClassifyTaskSpec;
  for (const req of buildFirstTokenRequests(spec, await rows('study-b/inference/multinli:test', 20))) {
    const enc = encodeFirstToken(tok, req.context, req.candidates, { addSpecialTokens: false }, 4096);
    assert.deepEqual(enc.context, tok.encode(req.context.trimEnd(), { addSpecialTokens: false }));
    // The word-initial pieces ("▁ent", "▁neutral", "▁contradiction"): the standalone words' first tokens.
    assert.deepEqual(enc.candidates, spec.labels.map((l) => tok.encode(l, { addSpecialTokens: false })[0]));
    assert.notDeepEqual(enc.candidates, [...STUDY_B_LLAMA2_TARGET_IDS.inference!]);
  }
});

test('a Llama-family tokenizer.json as npm ships it: in context "pos", alone "▁positive"', () => {
  const dir = shippedLlamaFamilyDir();
  const tok = loadTokenizer(dir);
  const spec = studyBTask('sentiment', 1) as ClassifyTaskSpec;
  const [req] = buildFirstTokenRequests(spec, [{ id: 'q', fields: { input: 'Great blender, works as described.' }, label: 'positive' }]);
  const piece = (id: number) => tok.decode([tok.encode('x', { addSpecialTokens: false })[0], id]).slice(1);
  const inContext = encodeFirstToken(tok, req.context, req.candidates, {}, 4096);
  const alone = encodeFirstToken(tok, req.context, req.candidates, { labelTokens: 'standalone' }, 4096);
  assert.deepEqual(inContext.candidates.map(piece), ['pos', 'negative']);
  assert.deepEqual(alone.candidates.map(piece), [' positive', ' negative']);
  assert.equal(inContext.context[0], tok.bosTokenId, 'special tokens by default');
});

test('classification training targets: the in-context label token, and study B\'s label word + EOS', async (t) => {
  if (!haveData) { t.skip(NO_DATA); return; }
  const tok = await llama2();
  const spec = studyBTask('sentiment', 1) as ClassifyTaskSpec;
  const train = await rows('study-b/sentiment/amazon:train-2000', 30);
  const pieces = trainingPieces(spec, train);
  const official = STUDY_B_LLAMA2_TARGET_IDS.sentiment!;
  const labelIndex = (ex: Example) => STUDY_B_LABELS.sentiment!.indexOf(ex.label!);
  const classify = encodeForTraining(tok, pieces, 'label-token', 4096);
  classify.forEach((s, i) => {
    assert.deepEqual(s.targets, [official[labelIndex(train[i])]]);
    assert.equal(s.lossPositions[0], s.ids.length - 1);
  });
  const standalone = encodeForTraining(tok, pieces, 'label-token', 4096, 'standalone');
  standalone.forEach((s, i) => assert.deepEqual(s.targets, [tok.encode(train[i].label!, { addSpecialTokens: false })[0]]));
  // Study B's objective (train_ptune.py: output + eos_token, loss on those tokens only).
  const supervised = encodeForTraining(tok, pieces, 'supervised', 4096);
  supervised.forEach((s, i) => {
    const word = train[i].label!;
    const whole = tok.encode(pieces[i].context + word);
    assert.deepEqual(s.targets, [...whole.slice(tok.encode(pieces[i].context).length), tok.eosTokenId]);
    assert.equal(s.targets[0], official[labelIndex(train[i])]);
    assert.equal(s.targets.at(-1), 2);
  });
});

test('labelTokens llama2-ids: study B\'s hard-coded ids read after the prompt as given, refused by another vocabulary', async (t) => {
  if (!haveData) { t.skip(NO_DATA); return; }
  const tok = await llama2();
  const spec = studyBTask('inference', 2) as ClassifyTaskSpec;
  const fixedTokens = { ids: [...STUDY_B_LLAMA2_TARGET_IDS.inference!], pieces: [...STUDY_B_LLAMA2_TARGET_PIECES.inference!] };
  for (const req of buildFirstTokenRequests(spec, await rows('study-b/inference/multinli:test', 10))) {
    const enc = encodeFirstToken(tok, req.context, req.candidates, { fixedTokens, addSpecialTokens: false }, 4096);
    // The release's reading: the prompt with its final "▁" token, then "ent" / "neut" / "contr".
    assert.deepEqual(enc.context, tok.encode(req.context, { addSpecialTokens: false }));
    assert.equal(enc.context.at(-1), 29871);
    assert.deepEqual(enc.candidates, fixedTokens.ids);
  }
  const mistralLike = loadTokenizer(shippedLlamaFamilyDir());
  assert.throws(() => encodeFirstToken(mistralLike, 'x', spec.labels, { fixedTokens }, 4096), /decodes to .* these ids belong to another tokenizer/);
  // The plan attaches them to study B's classification cells only.
  const { planCells, promptVariants, resolveTestSets } = await import('../../src/evaluate/index.ts');
  const sets = await resolveTestSets(['study-b/inference/rte:test'], { dataDir, limit: 2 });
  const [cell] = await planCells(sets, promptVariants([2]), { labelTokens: 'llama2-ids' });
  const p = cell.payloads[0];
  assert.ok(p.mode === 'first-token' && p.labelTokens === 'llama2-ids');
  assert.deepEqual(p.mode === 'first-token' ? p.fixedTokens : undefined, fixedTokens);
  const studyA = await resolveTestSets(['study-a/rte:train'], { dataDir, limit: 2 });
  await assert.rejects(planCells(studyA, promptVariants(), { labelTokens: 'llama2-ids' }), /task "study-a\/pattern" has no hard-coded ids/);
});
