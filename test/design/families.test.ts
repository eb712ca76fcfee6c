// A model family is one file (docs/design.md, "A family is one file"): everything genstudy knows of
// a family the built-in engine implements (its config, parameters, forward pass, LoRA defaults, how
// it is initialised from scratch and its tiny config) is in src/engine/builtin/families/<name>.ts,
// and the list of families is src/engine/builtin/registry.ts's, once. These tests fail when a
// family's facts are declared outside its file or the family list is written out a second time.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { allFamilies, FAMILY_NAMES, INIT_FAMILIES } from '../../src/engine/builtin/registry.ts';
import type { Family } from '../../src/engine/builtin/families/family.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const src = path.join(root, 'src');
const familiesDir = path.join(src, 'engine/builtin/families');
const REGISTRY = 'engine/builtin/registry.ts';

/** Files (relative to src/) that may name a family's facts, and which, with the reason. */
const ALLOWED: Record<string, { tokens: string[]; why: string }> = {
  'engine/builtin/lora.ts': { tokens: ['q_proj', 'k_proj', 'v_proj', 'o_proj'],
    why: 'the target modules most decoders name, for model types the built-in engine does not implement' },
  'engine/remote/loader.ts': { tokens: ['max_position_embeddings', 'n_positions'],
    why: 'the longest sequence of any model a server runs, whatever its family' },
  'engine/builtin/rotary.ts': { tokens: ['rope_theta'], why: 'the rotary block every rotary family shares reads its settings' },
};

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return e.name.endsWith('.ts') ? [p] : [];
  });
}

/** A file's code without its comments (block comments, and line comments not inside a string such as a URL). */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').split('\n').map((line) => line.replace(/(^|[^:'"`\\])\/\/.*$/, '$1')).join('\n');
}

/** A config.json of the family to read its parameter names from: its tiny config, else its test fixture's. */
function configOf(name: string, family: Family): Record<string, unknown> | undefined {
  if (family.scratchConfig) return family.scratchConfig(50, { layers: 1, hidden: 16, heads: 2, kvHeads: 1, positions: 8 });
  const fixture = path.join(root, 'test/engine/fixtures', name, 'config.json');
  return fs.existsSync(fixture) ? JSON.parse(fs.readFileSync(fixture, 'utf8')) as Record<string, unknown> : undefined;
}

/**
 * The words that are one family's facts: its LoRA targets, the config fields that set its size and
 * that its tiny config writes (the fields every tiny config writes, such as vocab_size, are
 * anyone's), and the modules of its norms and residual projections; snake_case words only (a word
 * such as "norm" is everyone's).
 */
function factWords(): Map<string, string[]> {
  const scratch = allFamilies().filter((f) => f.scratchConfig).map((f) => Object.keys(configOf(f.modelTypes[0], f)!));
  const everyones = new Set(scratch.length ? scratch[0].filter((k) => scratch.every((keys) => keys.includes(k))) : []);
  const words = new Map<string, string[]>();
  FAMILY_NAMES.forEach((name, i) => {
    const family = allFamilies()[i];
    const config = configOf(name, family);
    const params = config ? family.params(family.parseConfig(config, `${name} config`)) : [];
    for (const w of [
      ...family.loraTargets, ...family.sizeFields, ...(family.scratchConfig ? Object.keys(config!).filter((k) => !everyones.has(k)) : []),
      ...params.filter((s) => s.norm || s.residual).map((s) => s.name.split('.').at(-2)!),
    ]) {
      if (w.includes('_') && !words.get(w)?.includes(name)) words.set(w, [...words.get(w) ?? [], name]);
    }
  });
  return words;
}

test('each family is its own file, listed once in the registry under the name its config.json carries', () => {
  const files = fs.readdirSync(familiesDir).filter((f) => f.endsWith('.ts') && f !== 'family.ts').map((f) => f.slice(0, -'.ts'.length));
  assert.deepEqual([...files].sort(), [...FAMILY_NAMES].sort(),
    'every file in families/ (but family.ts) is a registered family, and every family has its file');
  FAMILY_NAMES.forEach((name, i) => {
    const family = allFamilies()[i];
    assert.ok(family.modelTypes.includes(name), `${name}: its model_type values (${family.modelTypes.join(', ')}) include its name`);
    assert.match(fs.readFileSync(path.join(familiesDir, `${name}.ts`), 'utf8'), new RegExp(`^export const ${name}\\b`, 'm'),
      `families/${name}.ts exports ${name}`);
  });
  const registry = code(fs.readFileSync(path.join(src, REGISTRY), 'utf8')).split('\n').filter((l) => !l.startsWith('import ')).join('\n');
  for (const name of FAMILY_NAMES) {
    assert.equal(registry.match(new RegExp(`\\b${name}\\b`, 'g'))?.length, 1, `${REGISTRY} names ${name} once besides its import`);
  }
});

test('the families offered from scratch are those with a tiny config, and each tiny config builds a model that can be initialised', () => {
  assert.deepEqual([...INIT_FAMILIES], FAMILY_NAMES.filter((_, i) => allFamilies()[i].scratchConfig !== undefined));
  assert.ok(INIT_FAMILIES.length > 0);
  for (const name of INIT_FAMILIES) {
    const family = allFamilies()[FAMILY_NAMES.indexOf(name)];
    const config = family.scratchConfig!(50, { layers: 2, hidden: 16, heads: 2, kvHeads: 1, positions: 8 });
    assert.equal(config.model_type, name, `${name}: its tiny config's model_type`);
    const specs = family.params(family.parseConfig(config, `${name} tiny config`));
    // train/init.ts: biases 0, norms 1, every other tensor drawn; a vector that is neither has no rule.
    const vectors = specs.filter((s) => s.shape.length === 1 && !s.name.endsWith('.bias') && !s.optional);
    assert.deepEqual(vectors.filter((s) => !s.norm).map((s) => s.name), [], `${name}: every weight vector is a norm's`);
    assert.ok(specs.every((s) => !(s.norm && s.residual)), `${name}: a norm is not a residual projection`);
  }
});

test('no list of families outside the registry', () => {
  const names = FAMILY_NAMES.join('|');
  const quoted = `['"\`](?:${names})['"\`]`;
  // An array, tuple or union of two names ('gpt2', 'llama' / 'gpt2' | 'llama'), or a string of them (gpt2|llama, gpt2, llama).
  const list = new RegExp(`${quoted}\\s*[,|]\\s*${quoted}|\\b(?:${names})(?:\\||, )(?:${names})\\b`);
  const found: string[] = [];
  for (const file of sourceFiles(src)) {
    const rel = path.relative(src, file).split(path.sep).join('/');
    if (rel === REGISTRY || rel.startsWith('engine/builtin/families/')) continue;
    code(fs.readFileSync(file, 'utf8')).split('\n').forEach((line, i) => {
      if (list.test(line)) found.push(`${rel}:${i + 1}: ${line.trim()}`);
    });
  }
  assert.deepEqual(found, [], `families listed outside ${REGISTRY} (derive the list from FAMILY_NAMES / INIT_FAMILIES)`);
});

test('a family\'s facts (LoRA targets, config fields, norm and residual modules) appear in code only in the families\' files', () => {
  const words = factWords();
  assert.ok(words.has('c_attn') && words.has('num_key_value_heads'), 'the fact words include GPT-2\'s and Llama\'s');
  const found: string[] = [];
  for (const file of sourceFiles(src)) {
    const rel = path.relative(src, file).split(path.sep).join('/');
    // Families built alike share their facts (llama.ts's llamaLike is Qwen2's and OLMo2's too).
    if (rel.startsWith('engine/builtin/families/')) continue;
    const text = code(fs.readFileSync(file, 'utf8'));
    for (const [word, families] of words) {
      if (ALLOWED[rel]?.tokens.includes(word)) continue;
      if (new RegExp(`\\b${word}\\b`).test(text)) found.push(`${rel}: ${word} (${families.join(', ')})`);
    }
  }
  assert.deepEqual(found, [], 'a family\'s facts outside its file: move them into src/engine/builtin/families/<family>.ts');
});

test('the families choose their attention kernels through blocks.ts, one rule for all', () => {
  for (const name of FAMILY_NAMES) {
    const text = code(fs.readFileSync(path.join(familiesDir, `${name}.ts`), 'utf8'));
    assert.doesNotMatch(text, /attentionByLengthsApplies|nativeCausalAttention\(/,
      `families/${name}.ts: use blocks.ts attendsByLengths / causalSelfAttention`);
  }
});
