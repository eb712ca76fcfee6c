import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readSafetensors, writeSafetensors } from '../../src/engine/builtin/safetensors.ts';
import { UserError } from '../../src/errors.ts';

function tmp(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'genstudy-st-'));
}

/** A safetensors file written byte by byte, independently of writeSafetensors. */
function rawFile(file: string, entries: { name: string; dtype: string; shape: number[]; bytes: Buffer }[]): void {
  const header: Record<string, unknown> = {};
  let off = 0;
  for (const e of entries) {
    header[e.name] = { dtype: e.dtype, shape: e.shape, data_offsets: [off, off + e.bytes.length] };
    off += e.bytes.length;
  }
  const h = Buffer.from(JSON.stringify(header));
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(h.length));
  fs.writeFileSync(file, Buffer.concat([len, h, ...entries.map((e) => e.bytes)]));
}

test('F32 round trip keeps names, shapes, values and metadata', () => {
  const file = path.join(tmp(), 'a.safetensors');
  const a = new Float32Array([1.5, -2, 3.25, 1e-30, 7, 8]);
  writeSafetensors(file, new Map([['w', { shape: [2, 3], data: a }], ['b', { shape: [1], data: new Float32Array([0.1]) }]]), { format: 'pt' });
  const back = readSafetensors(file);
  assert.deepEqual(back.metadata, { format: 'pt' });
  assert.deepEqual(back.tensors.get('w')!.shape, [2, 3]);
  assert.deepEqual(Array.from(back.tensors.get('w')!.data), Array.from(a));
  assert.equal(back.tensors.get('b')!.data[0], Math.fround(0.1));
  // Header padded so data starts 8-byte aligned, as the Rust writer does.
  const headerLen = Number(fs.readFileSync(file).readBigUInt64LE(0));
  assert.equal((8 + headerLen) % 8, 0);
});

test('F16 and BF16 (normals, subnormals, signs, infinities) read as float32', () => {
  const file = path.join(tmp(), 'h.safetensors');
  // Bit patterns and their values follow from the IEEE 754 binary16 / bfloat16 definitions.
  const f16 = [0x3c00, 0xc000, 0x3555, 0x0001, 0x7bff, 0xfc00, 0x0000, 0x8000];
  const f16Values = [1, -2, 0.333251953125, 2 ** -24, 65504, -Infinity, 0, -0];
  const bf16 = [0x3f80, 0xc020, 0x0001, 0x7f80];
  const bf16Values = [1, -2.5, 2 ** -133, Infinity];
  const u16 = (xs: number[]) => { const b = Buffer.alloc(2 * xs.length); xs.forEach((x, i) => b.writeUInt16LE(x, 2 * i)); return b; };
  rawFile(file, [
    { name: 'h', dtype: 'F16', shape: [8], bytes: u16(f16) },
    { name: 'b', dtype: 'BF16', shape: [2, 2], bytes: u16(bf16) },
  ]);
  const back = readSafetensors(file);
  assert.deepEqual(Array.from(back.tensors.get('h')!.data), f16Values);
  assert.deepEqual(Array.from(back.tensors.get('b')!.data), bf16Values);
});

test('unsupported dtypes and truncated files are clear errors', () => {
  const dir = tmp();
  const file = path.join(dir, 'i.safetensors');
  rawFile(file, [{ name: 'ids', dtype: 'I64', shape: [1], bytes: Buffer.alloc(8) }]);
  assert.throws(() => readSafetensors(file), (e: Error) => e instanceof UserError && e.message.includes('"ids"') && e.message.includes('I64') && e.message.includes(file));
  const bad = path.join(dir, 'bad.safetensors');
  rawFile(bad, [{ name: 'w', dtype: 'F32', shape: [4], bytes: Buffer.alloc(8) }]);
  assert.throws(() => readSafetensors(bad), /"w".*do not fit/);
  fs.writeFileSync(path.join(dir, 'short.safetensors'), Buffer.from([1, 2]));
  assert.throws(() => readSafetensors(path.join(dir, 'short.safetensors')), UserError);
});
