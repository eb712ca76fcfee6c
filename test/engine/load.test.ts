// Loading Hugging Face folders: sharded weights, other dtypes, and the errors that name file and tensor
// (on the committed fixtures, so these run without ../shared).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { loadModel } from '../../src/engine/index.ts';
import { readSafetensors, writeSafetensors } from '../../src/engine/hf/safetensors.ts';
import { UserError } from '../../src/errors.ts';
import { copyToTemp, fixturesDir, maxAbsDiff } from './helpers.ts';

const probe = [[5, 17, 42, 100, 7, 250], [3, 9]];
const fixture = (name: string) => path.join(fixturesDir, name);

function editConfig(dir: string, edit: (c: Record<string, unknown>) => void): void {
  const f = path.join(dir, 'config.json');
  const c = JSON.parse(fs.readFileSync(f, 'utf8'));
  edit(c);
  fs.writeFileSync(f, JSON.stringify(c));
}

function rewriteWeights(dir: string, edit: (m: Map<string, { shape: number[]; data: Float32Array }>) => void): void {
  const f = path.join(dir, 'model.safetensors');
  const m = new Map([...readSafetensors(f).tensors].map(([k, v]) => [k, { shape: v.shape, data: v.data }]));
  edit(m);
  writeSafetensors(f, m);
}

async function rejects(dir: string, ...parts: string[]): Promise<void> {
  await assert.rejects(loadModel(dir), (e: Error) => {
    assert.ok(e instanceof UserError, `expected a UserError, got ${e}`);
    for (const p of parts) assert.ok(e.message.includes(p), `"${e.message}" should mention ${p}`);
    return true;
  });
}

test('sharded checkpoints (model.safetensors.index.json) load the same weights', async () => {
  const src = fixture('olmo2');
  const dir = copyToTemp(src);
  const all = readSafetensors(path.join(dir, 'model.safetensors')).tensors;
  fs.rmSync(path.join(dir, 'model.safetensors'));
  const names = [...all.keys()].sort();
  const shards = [names.slice(0, 7), names.slice(7)];
  const weightMap: Record<string, string> = {};
  shards.forEach((s, i) => {
    const file = `model-0000${i + 1}-of-00002.safetensors`;
    writeSafetensors(path.join(dir, file), new Map(s.map((n) => [n, all.get(n)!])));
    for (const n of s) weightMap[n] = file;
  });
  fs.writeFileSync(path.join(dir, 'model.safetensors.index.json'), JSON.stringify({ metadata: {}, weight_map: weightMap }));
  const [a, b] = [await loadModel(src), await loadModel(dir)];
  try {
    const [la, lb] = [await a.logits(probe), await b.logits(probe)];
    la.forEach((row, i) => assert.equal(maxAbsDiff(row, lb[i]), 0));
    assert.notEqual(a.id, b.id);
  } finally {
    a.dispose();
    b.dispose();
  }
});

test('F16 and BF16 weights are read into float32', async () => {
  const src = fixture('opt');
  const ref = await loadModel(src);
  const refLogits = await ref.logits(probe);
  ref.dispose();
  for (const [dtype, tol] of [['F16', 0.05], ['BF16', 0.3]] as const) {
    const dir = copyToTemp(src);
    const f = path.join(dir, 'model.safetensors');
    const tensors = readSafetensors(f).tensors;
    // Re-encode every tensor (round to nearest) by hand; the reader must decode it.
    const header: Record<string, unknown> = {};
    const parts: Buffer[] = [];
    let off = 0;
    for (const [name, tns] of tensors) {
      const b = Buffer.alloc(2 * tns.data.length);
      tns.data.forEach((x, i) => b.writeUInt16LE(dtype === 'BF16' ? toBf16(x) : toF16(x), 2 * i));
      header[name] = { dtype, shape: tns.shape, data_offsets: [off, off + b.length] };
      off += b.length;
      parts.push(b);
    }
    const h = Buffer.from(JSON.stringify(header));
    const len = Buffer.alloc(8);
    len.writeBigUInt64LE(BigInt(h.length));
    fs.writeFileSync(f, Buffer.concat([len, h, ...parts]));
    const m = await loadModel(dir);
    const l = await m.logits(probe);
    m.dispose();
    const d = Math.max(...l.map((row, i) => maxAbsDiff(row, refLogits[i])));
    assert.ok(d > 0 && d < tol, `${dtype}: logits differ by ${d}`);
  }
});

function toBf16(x: number): number {
  const u = new Uint32Array(new Float32Array([x]).buffer)[0];
  return ((u + 0x7fff + ((u >> 16) & 1)) >>> 16) & 0xffff;
}

function toF16(x: number): number {
  // Normal range only (the golden weights are small and not tiny), round to nearest.
  const u = new Uint32Array(new Float32Array([x]).buffer)[0];
  const sign = (u >>> 16) & 0x8000;
  const exp = ((u >>> 23) & 0xff) - 127 + 15;
  if (exp <= 0) return sign;
  const mant = u & 0x7fffff;
  const rounded = (exp << 10 | (mant >>> 13)) + ((mant >>> 12) & 1);
  return sign | rounded;
}

test('an unknown model_type names config.json and the known types', async () => {
  const src = fixture('opt');
  const dir = copyToTemp(src);
  editConfig(dir, (c) => { c.model_type = 'mamba'; });
  await rejects(dir, path.join(dir, 'config.json'), '"mamba"', 'gpt2', 'llama');
});

test('a missing tensor names the weights file and the tensor', async () => {
  const src = fixture('olmo2');
  const dir = copyToTemp(src);
  rewriteWeights(dir, (m) => m.delete('model.layers.1.mlp.up_proj.weight'));
  await rejects(dir, path.join(dir, 'model.safetensors'), '"model.layers.1.mlp.up_proj.weight"', '[128,64]');
});

test('a shape mismatch names the file, the tensor and both shapes', async () => {
  const src = fixture('opt');
  const dir = copyToTemp(src);
  editConfig(dir, (c) => { c.ffn_dim = 96; });
  await rejects(dir, path.join(dir, 'model.safetensors'), '"model.decoder.layers.0.fc1.weight"', '[128,64]', '[96,64]');
});

test('a tokenizer larger than the vocabulary is rejected', async () => {
  const src = fixture('opt');
  const dir = copyToTemp(src);
  editConfig(dir, (c) => { c.vocab_size = 200; });
  // The weights no longer match either; the tokenizer check comes first and says why.
  await rejects(dir, 'tokenizer.json', 'vocab_size', '200');
});

test('a folder without weights or config says what is missing', async () => {
  const src = fixture('opt');
  const dir = copyToTemp(src);
  fs.rmSync(path.join(dir, 'model.safetensors'));
  await rejects(dir, dir, 'model.safetensors');
  fs.rmSync(path.join(dir, 'config.json'));
  await rejects(dir, dir, 'config.json');
});

test('a config too large to hold is refused from config.json alone, before any weight is read', async () => {
  const dir = copyToTemp(fixture('opt'));
  // One tensor over 2^31 values, and a model over this machine's memory in small tensors.
  editConfig(dir, (c) => { c.ffn_dim = 100_000_000; });
  await rejects(dir, path.join(dir, 'config.json'), '"model.decoder.layers.0.fc1.weight"', 'more than one tensor can hold');
  editConfig(dir, (c) => { c.ffn_dim = 30_000_000; c.num_hidden_layers = 4000; });
  await rejects(dir, path.join(dir, 'config.json'), "more than this machine's memory");
  editConfig(dir, (c) => { c.ffn_dim = 128; c.num_hidden_layers = 10_000_000; });
  await rejects(dir, path.join(dir, 'config.json'), '10000000 layers');
});
