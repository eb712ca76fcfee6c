// A column of numbers kept in fixed-size typed-array chunks, so that 15M scores grow without one
// array being copied into one twice its size (which doubles the peak) and without an object per
// row. A whole-number column starts at one byte per value and widens chunk by chunk (Uint8, Uint16,
// Uint32, then Float64 for anything else), so names interned as small indices cost a byte or two.
// A chunk no row has been set in is never allocated: a column most rows leave empty (a score's n,
// an attribute only some rows give) costs nothing for them, and reads as `missing`.

const CHUNK_BITS = 16;
const CHUNK = 1 << CHUNK_BITS;
const MASK = CHUNK - 1;

type Chunk = Uint8Array | Uint16Array | Uint32Array | Float64Array;

/** The narrowest element size that holds `v` exactly. */
function widthFor(v: number): 1 | 2 | 4 | 8 {
  if (!Number.isInteger(v) || v < 0 || v > 0xffffffff) return 8;
  return v <= 0xff ? 1 : v <= 0xffff ? 2 : 4;
}

function chunkOf(width: 1 | 2 | 4 | 8): Chunk {
  return width === 1 ? new Uint8Array(CHUNK) : width === 2 ? new Uint16Array(CHUNK) : width === 4 ? new Uint32Array(CHUNK) : new Float64Array(CHUNK);
}

export interface ColumnOptions {
  /** Any double from the start (else whole numbers, widened as needed). */
  float?: boolean;
  /** What a row never set reads as (0 unless given; a float column's NaN marks "not given"). */
  missing?: number;
}

export class ChunkedColumn {
  private readonly chunks: (Chunk | undefined)[] = [];
  private width: 1 | 2 | 4 | 8;
  private readonly missing: number;
  /** One past the last row set. */
  length = 0;

  constructor(opts: ColumnOptions = {}) {
    this.width = opts.float ? 8 : 1;
    this.missing = opts.missing ?? 0;
  }

  push(v: number): void {
    this.set(this.length, v);
  }

  set(i: number, v: number): void {
    const c = i >>> CHUNK_BITS, off = i & MASK;
    let chunk = this.chunks[c];
    if (chunk === undefined) {
      this.chunks[c] = chunk = chunkOf(this.width);
      if (this.missing !== 0) chunk.fill(this.missing);
    }
    if (chunk.BYTES_PER_ELEMENT < 8 && (v > 0xff || v !== (v >>> 0)) && widthFor(v) > chunk.BYTES_PER_ELEMENT) {
      this.width = Math.max(this.width, widthFor(v)) as 1 | 2 | 4 | 8;
      const wider = chunkOf(this.width);
      wider.set(chunk);
      this.chunks[c] = chunk = wider;
    }
    chunk[off] = v;
    if (i >= this.length) this.length = i + 1;
  }

  get(i: number): number {
    const chunk = this.chunks[i >>> CHUNK_BITS];
    return chunk === undefined ? this.missing : chunk[i & MASK];
  }

  /** Whether any row was set. */
  get any(): boolean {
    return this.length > 0;
  }

  /** Bytes held, for the benches. */
  bytes(): number {
    return this.chunks.reduce((s, c) => s + (c?.byteLength ?? 0), 0);
  }
}
