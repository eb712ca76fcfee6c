// A model initialised from scratch is a function of its config and seed, byte for byte: the same
// (config, seed) writes the same config.json and model.safetensors, here and in every later version.
// The hashes were taken before the families' init rules moved into their files, so they
// pin the rules themselves: which tensors are norms (1), which are residual projections (std / sqrt(2
// n_layer)), and each family's tiny config, field by field.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { INIT_FAMILIES, type InitFamily } from '../../src/engine/index.ts';
import { initModel, tinyConfig } from '../../src/train/index.ts';
import { repoRoot, smallSuite, tempDir } from './helpers.ts';

const sha256 = (file: string) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');

async function hashes(config: Record<string, unknown>, tokenizerDir: string, seed: number): Promise<{ config: string; weights: string }> {
  const dir = await initModel(config, tokenizerDir, seed, path.join(tempDir(), 'model'));
  return { config: sha256(path.join(dir, 'config.json')), weights: sha256(path.join(dir, 'model.safetensors')) };
}

/** Each from-scratch family's tiny model (vocabulary 99, 3 layers of 16, 2 heads, 1 key-value head, 40 positions, seed 5). */
const TINY: Record<InitFamily, { config: string; weights: string }> = {
  gpt2: {
    config: '5d47d5c20b6c7eeeab841196468ea9a0a9345b3e0b875c68c4556caf8175c44d',
    weights: 'c9dd8498b857fe93675fdd5d614b5ea104146c4336c5edf04c6c5e9897a5f559',
  },
  llama: {
    config: 'a4eff458d349ff9321d697d7cd18265387a36130f1062edba2e09fd9806c944c',
    weights: '6b8d0682c9fe6352eb79370f40433a63e701848a3a768e573934e2b7ebe10c4e',
  },
};

/** Models initialised from the test fixtures' configs (seed 5): families with no tiny config of their own, and variants. */
const FIXTURES: Record<string, { config: string; weights: string }> = {
  opt: {
    config: 'bc43a2772fabaaaf2ce36bf30a3d08a78a8b988a5fad37f1703c39987cf42250',
    weights: '28f21399990a4769d6719fce0d661f2bff7726cad8d954d778eca4976a9b6a07',
  },
  'opt-postnorm': {
    config: 'a7805681ad42919826d9f276bac774e30a7f4871ee21ca9a5435c511ed587f63',
    weights: '05a626c767cd96d6817ce4b0a3e8ea4e20f4846fcb4a9c4366f8479232fd73f0',
  },
  qwen2: {
    config: '1bba96eeda45e9ecc3b8a74e95306bd3dfe0ba4f0cd6e74d0490762270fb1bd2',
    weights: 'e8be2548813077bd6068a2fbd710c80d31f488286ac6a488224c0e4641b1040d',
  },
  olmo2: {
    config: '00a040722a3864856e2e55617cfdf1bb9616e1ec533731faa821dbc36dd23a69',
    weights: '9a6bacad5937c21a84902175a3a06ef9ae357eb50164d0582ebc2612d550e93c',
  },
  'llama-variants': {
    config: 'e2f5ebbc969e2364818d84f69dcafbfed56d9b8e36958168a9f6ef7861a2e9a4',
    weights: 'ee73952361920d31df69f4003c74e7e0ede28f70b87ba97352569233564aef33',
  },
};

test('every from-scratch family\'s tiny model has pinned bytes: same seed, same bytes', async () => {
  assert.deepEqual(Object.keys(TINY).sort(), [...INIT_FAMILIES].sort(), 'a family offered from scratch needs its pinned hashes here');
  const { dir } = await smallSuite();
  for (const family of INIT_FAMILIES) {
    const config = tinyConfig(family, 99, { hidden: 16, layers: 3, heads: 2, kvHeads: 1, positions: 40 });
    assert.deepEqual(await hashes(config, dir, 5), TINY[family], family);
  }
});

test('a model initialised from any family\'s config: same seed, same bytes; another seed, other weights', async () => {
  for (const [name, expected] of Object.entries(FIXTURES)) {
    const fixture = path.join(repoRoot, 'test/engine/fixtures', name);
    const config = JSON.parse(fs.readFileSync(path.join(fixture, 'config.json'), 'utf8')) as Record<string, unknown>;
    assert.deepEqual(await hashes(config, fixture, 5), expected, name);
    if (name === 'opt') assert.notEqual((await hashes(config, fixture, 6)).weights, expected.weights, 'seed 6 draws other weights');
  }
});
