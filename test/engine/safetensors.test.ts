import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readSafetensors, writeSafetensors } from '../../src/engine/hf/safetensors.ts';
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
  assert.throws(() => readSafetensors(file),
    (e: Error) => e instanceof UserError && e.message.includes('"ids"') && e.message.includes('I64') && e.message.includes(file));
  const bad = path.join(dir, 'bad.safetensors');
  rawFile(bad, [{ name: 'w', dtype: 'F32', shape: [4], bytes: Buffer.alloc(8) }]);
  assert.throws(() => readSafetensors(bad), /"w" \(F32 \[4\]: 16 bytes\) has data offsets \[0, 8\] \(8 bytes\)/);
  fs.writeFileSync(path.join(dir, 'short.safetensors'), Buffer.from([1, 2]));
  assert.throws(() => readSafetensors(path.join(dir, 'short.safetensors')), UserError);
});

/** A file whose header is `header` verbatim (any JSON), followed by `dataBytes` zero bytes. */
function headerFile(file: string, header: unknown, dataBytes = 16): string {
  const h = Buffer.from(JSON.stringify(header));
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(h.length));
  fs.writeFileSync(file, Buffer.concat([len, h, Buffer.alloc(dataBytes)]));
  return file;
}

test('every header entry is checked (dtype, shape, offsets, overlaps): a clear error naming the file and tensor, never a TypeError', () => {
  const dir = tmp();
  const ok = { dtype: 'F32', shape: [2, 2], data_offsets: [0, 16] };
  const cases: [unknown, RegExp][] = [
    [{ w: { dtype: 'F32', data_offsets: [0, 16] } }, /tensor "w" has shape undefined; expected a list of whole numbers/],
    [{ w: { ...ok, shape: 'big' } }, /tensor "w" has shape "big"/],
    [{ w: { ...ok, shape: [2, -2] } }, /tensor "w" has shape \[2,-2\]/],
    [{ w: { ...ok, shape: [2, 1.5] } }, /tensor "w" has shape \[2,1\.5\]/],
    [{ w: { shape: [4], data_offsets: [0, 16] } }, /tensor "w" has dtype undefined; expected one of F32/],
    [{ w: { ...ok, dtype: 7 } }, /tensor "w" has dtype 7/],
    [{ w: { dtype: 'F32', shape: [4] } }, /tensor "w" has data_offsets undefined; expected \[begin, end\]/],
    [{ w: { ...ok, data_offsets: [16, 0] } }, /tensor "w" has data_offsets \[16,0\]/],
    [{ w: { ...ok, data_offsets: ['0', '16'] } }, /tensor "w" has data_offsets \["0","16"\]/],
    [{ w: { ...ok, data_offsets: [0, 32] } }, /tensor "w" has data offsets \[0, 32\] past the end of the file's 16 data bytes/],
    [{ w: null }, /tensor "w": the header entry is null/],
    [{ w: [1, 2] }, /tensor "w": the header entry is \[1,2\]/],
    [{ a: { dtype: 'F32', shape: [3], data_offsets: [0, 12] }, b: { dtype: 'F32', shape: [2], data_offsets: [8, 16] } },
      /tensors "a" and "b" overlap/],
    [{ __metadata__: { step: 3 }, w: ok }, /__metadata__ must map names to strings/],
    [[1, 2, 3], /the safetensors header is not a JSON object/],
    [null, /the safetensors header is not a JSON object/],
  ];
  cases.forEach(([header, message], i) => {
    const file = headerFile(path.join(dir, `case-${i}.safetensors`), header);
    assert.throws(() => readSafetensors(file), (e: Error) => {
      assert.ok(e instanceof UserError, `case ${i}: ${e.name}: ${e.message}`);
      assert.match(e.message, message, `case ${i}`);
      assert.ok(e.message.startsWith(file), `case ${i}: names the file`);
      return true;
    });
  });
  assert.equal(readSafetensors(headerFile(path.join(dir, 'fine.safetensors'), { w: ok })).tensors.get('w')!.shape.join(), '2,2');
});
