// The safetensors format: 8-byte little-endian header length, a JSON header mapping tensor names to
// {dtype, shape, data_offsets}, then the raw little-endian buffers. Written by hand because the npm
// readers either pull in a whole ML runtime or do not convert F16/BF16 to float32; the format is ~40
// lines (https://github.com/huggingface/safetensors#format).
import fs from 'node:fs';
import { UserError, unreadable } from '../../errors.ts';
import { buildAtomicallySync } from '../../atomic-write.ts';

export interface RawTensor { dtype: string; shape: number[]; data: Float32Array }
export interface SafetensorsFile { tensors: Map<string, RawTensor>; metadata: Record<string, string> }

interface HeaderEntry { dtype: string; shape: number[]; data_offsets: [number, number] }

const BYTES: Record<string, number> = { F32: 4, F16: 2, BF16: 2, F64: 8 };

const isWhole = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** One header entry, checked field by field (a hostile or broken file must not reach the engine). */
function checkEntry(file: string, name: string, entry: unknown, dataBytes: number): HeaderEntry {
  const at = `${file}: tensor "${name}"`;
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    throw new UserError(`${at}: the header entry is ${JSON.stringify(entry)?.slice(0, 80)}, expected {dtype, shape, data_offsets}`);
  }
  const e = entry as Record<string, unknown>;
  const width = typeof e.dtype === 'string' ? BYTES[e.dtype] : undefined;
  if (width === undefined) {
    throw new UserError(`${at} has dtype ${JSON.stringify(e.dtype)}; expected one of ${Object.keys(BYTES).join(', ')}`);
  }
  if (!Array.isArray(e.shape) || !e.shape.every(isWhole)) {
    throw new UserError(`${at} has shape ${JSON.stringify(e.shape)}; expected a list of whole numbers (e.g. [768, 3072])`);
  }
  const shape = e.shape as number[];
  const count = shape.reduce((a, b) => a * b, 1);
  const offsets = e.data_offsets;
  if (!Array.isArray(offsets) || offsets.length !== 2 || !offsets.every(isWhole) || offsets[0] > offsets[1]) {
    throw new UserError(`${at} has data_offsets ${JSON.stringify(offsets)}; expected [begin, end], whole numbers with begin <= end`);
  }
  const [begin, end] = offsets as [number, number];
  if (end > dataBytes) {
    throw new UserError(`${at} has data offsets [${begin}, ${end}] past the end of the file's ${dataBytes} data bytes (file truncated?)`);
  }
  if (end - begin !== count * width) {
    throw new UserError(
      `${at} (${e.dtype} ${JSON.stringify(shape)}: ${count * width} bytes) has data offsets [${begin}, ${end}] (${end - begin} bytes)`);
  }
  return { dtype: e.dtype as string, shape, data_offsets: [begin, end] };
}

function checkMetadata(file: string, entry: unknown): Record<string, string> {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry) || Object.values(entry).some((v) => typeof v !== 'string')) {
    throw new UserError(`${file}: the header's __metadata__ must map names to strings`);
  }
  return entry as Record<string, string>;
}

/** The tensors' byte ranges must not overlap (the format's rule; the reference reader checks it too). */
function checkLayout(file: string, entries: Map<string, HeaderEntry>): void {
  const ranges = [...entries].map(([name, e]) => ({ name, begin: e.data_offsets[0], end: e.data_offsets[1] }))
    .filter((r) => r.end > r.begin).sort((a, b) => a.begin - b.begin);
  for (let i = 1; i < ranges.length; i++) {
    if (ranges[i].begin < ranges[i - 1].end) {
      throw new UserError(`${file}: tensors "${ranges[i - 1].name}" and "${ranges[i].name}" overlap (data offsets ` +
        `[${ranges[i - 1].begin}, ${ranges[i - 1].end}] and [${ranges[i].begin}, ${ranges[i].end}])`);
    }
  }
}

/** Bytes a safetensors file must have according to its header, or undefined when the header is unreadable (a file still being written is shorter). */
export function safetensorsExpectedSize(file: string): number | undefined {
  const fd = fs.openSync(file, 'r');
  try {
    const len = Buffer.alloc(8);
    if (fs.readSync(fd, len, 0, 8, 0) < 8) return undefined;
    const n = Number(len.readBigUInt64LE());
    if (n <= 0 || n > 100_000_000) return undefined;
    const header = Buffer.alloc(n);
    if (fs.readSync(fd, header, 0, n, 8) < n) return undefined;
    const parsed = JSON.parse(header.toString('utf8')) as Record<string, { data_offsets?: [number, number] }>;
    let end = 0;
    for (const [name, t] of Object.entries(parsed)) if (name !== '__metadata__' && t.data_offsets) end = Math.max(end, t.data_offsets[1]);
    return 8 + n + end;
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * One .safetensors file opened for reading tensor by tensor: only the header is read up front, each
 * tensor's bytes when asked for, so loading a model never holds a whole file in memory.
 */
export class SafetensorsReader {
  readonly metadata: Record<string, string> = {};
  private readonly entries = new Map<string, HeaderEntry>();
  private readonly dataStart: number;
  private fd: number;

  constructor(readonly file: string) {
    try {
      this.fd = fs.openSync(file, 'r');
    } catch (err) {
      throw unreadable(file, err);
    }
    try {
      const size = fs.fstatSync(this.fd).size;
      const lenBuf = Buffer.alloc(8);
      if (size < 8 || fs.readSync(this.fd, lenBuf, 0, 8, 0) < 8) {
        throw new UserError(`${file}: not a safetensors file (shorter than its 8-byte header length)`);
      }
      const headerLen = Number(lenBuf.readBigUInt64LE(0));
      if (headerLen <= 0 || 8 + headerLen > size) {
        throw new UserError(`${file}: not a safetensors file (header length ${headerLen} does not fit in ${size} bytes)`);
      }
      const headerBuf = Buffer.alloc(headerLen);
      fs.readSync(this.fd, headerBuf, 0, headerLen, 8);
      let header: unknown;
      try {
        header = JSON.parse(headerBuf.toString('utf8'));
      } catch (err) {
        throw new UserError(`${file}: the safetensors header is not valid JSON (${(err as Error).message})`);
      }
      if (typeof header !== 'object' || header === null || Array.isArray(header)) {
        throw new UserError(`${file}: the safetensors header is not a JSON object of tensor entries`);
      }
      this.dataStart = 8 + headerLen;
      for (const [name, entry] of Object.entries(header)) {
        if (name === '__metadata__') { Object.assign(this.metadata, checkMetadata(file, entry)); continue; }
        this.entries.set(name, checkEntry(file, name, entry, size - this.dataStart));
      }
      checkLayout(file, this.entries);
    } catch (err) {
      fs.closeSync(this.fd);
      throw err;
    }
  }

  names(): string[] {
    return [...this.entries.keys()];
  }

  shape(name: string): number[] | undefined {
    return this.entries.get(name)?.shape;
  }

  /** The tensor's values as float32. */
  read(name: string): RawTensor {
    const e = this.entries.get(name);
    if (!e) throw new Error(`internal: ${this.file} has no tensor ${name}`);
    const [begin, end] = e.data_offsets;
    const bytes = Buffer.alloc(end - begin);
    let done = 0;
    while (done < bytes.length) {
      const n = fs.readSync(this.fd, bytes, done, bytes.length - done, this.dataStart + begin + done);
      if (n === 0) throw new UserError(`${this.file}: tensor "${name}" is cut short (file truncated?)`);
      done += n;
    }
    // F32 bytes in their own aligned buffer are the values already: no second copy.
    const data = e.dtype === 'F32' && bytes.byteOffset % 4 === 0
      ? new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4)
      : toFloat32(bytes, 0, bytes.length / BYTES[e.dtype], e.dtype);
    return { dtype: e.dtype, shape: e.shape, data };
  }

  close(): void {
    fs.closeSync(this.fd);
  }
}

/** Reads every tensor (or those `only` accepts) of one .safetensors file into float32 (F32, F16, BF16, F64). */
export function readSafetensors(file: string, only?: (name: string) => boolean): SafetensorsFile {
  const reader = new SafetensorsReader(file);
  try {
    const tensors = new Map<string, RawTensor>();
    for (const name of reader.names()) if (!only || only(name)) tensors.set(name, reader.read(name));
    return { tensors, metadata: reader.metadata };
  } finally {
    reader.close();
  }
}

function toFloat32(buf: Buffer, offset: number, count: number, dtype: string): Float32Array {
  const out = new Float32Array(count);
  if (dtype === 'F32') {
    // Copy through a fresh ArrayBuffer: the file's offset need not be 4-byte aligned.
    new Uint8Array(out.buffer).set(buf.subarray(offset, offset + count * 4));
    return out;
  }
  if (dtype === 'F64') {
    for (let i = 0; i < count; i++) out[i] = buf.readDoubleLE(offset + 8 * i);
    return out;
  }
  const bits = new Uint32Array(out.buffer);
  for (let i = 0; i < count; i++) {
    const h = buf[offset + 2 * i] | (buf[offset + 2 * i + 1] << 8);
    bits[i] = dtype === 'BF16' ? h << 16 : halfToFloatBits(h);
  }
  return out;
}

/** IEEE 754 half -> single precision bit pattern (normals, subnormals, infinities, NaN). */
function halfToFloatBits(h: number): number {
  const sign = (h & 0x8000) << 16;
  const exp = (h >> 10) & 0x1f;
  let mant = h & 0x3ff;
  if (exp === 0x1f) return sign | 0x7f800000 | (mant << 13);
  if (exp !== 0) return sign | ((exp + 112) << 23) | (mant << 13);
  if (mant === 0) return sign;
  let e = 113;
  while ((mant & 0x400) === 0) { mant <<= 1; e--; }
  return sign | (e << 23) | ((mant & 0x3ff) << 13);
}

/** Writes float32 tensors as one .safetensors file (to a temporary name, then renamed). */
export function writeSafetensors(
  file: string, tensors: Map<string, { shape: number[]; data: Float32Array }>, metadata: Record<string, string> = { format: 'pt' },
): void {
  const names = [...tensors.keys()].sort();
  const header: Record<string, unknown> = { __metadata__: metadata };
  let offset = 0;
  for (const name of names) {
    const t = tensors.get(name)!;
    const bytes = t.data.length * 4;
    header[name] = { dtype: 'F32', shape: t.shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  let json = JSON.stringify(header);
  // Pad the header with spaces so the data starts 8-byte aligned, as the reference writer does.
  json += ' '.repeat((8 - ((8 + Buffer.byteLength(json)) % 8)) % 8);
  const headerBytes = Buffer.from(json, 'utf8');
  const lenBytes = Buffer.alloc(8);
  lenBytes.writeBigUInt64LE(BigInt(headerBytes.length));
  buildAtomicallySync(file, (tmp) => {
    const fd = fs.openSync(tmp, 'w');
    try {
      fs.writeSync(fd, lenBytes);
      fs.writeSync(fd, headerBytes);
      for (const name of names) {
        const d = tensors.get(name)!.data;
        fs.writeSync(fd, new Uint8Array(d.buffer, d.byteOffset, d.byteLength));
      }
    } finally {
      fs.closeSync(fd);
    }
  });
}
