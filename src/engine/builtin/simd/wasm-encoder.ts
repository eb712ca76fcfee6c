// A minimal WebAssembly binary encoder, enough for the engine's hand-written SIMD kernels: one memory
// imported from tfjs-backend-wasm (so the kernels read and write tensors where they lie on its heap)
// and exported functions. Opcodes follow the WebAssembly 2.0 core specification's binary format
// (https://webassembly.github.io/spec/core/binary/), SIMD ones behind the 0xFD prefix.

export const I32 = 0x7f, F32 = 0x7d, F64 = 0x7c, V128 = 0x7b;
export type ValType = typeof I32 | typeof F32 | typeof F64 | typeof V128;

/** Unsigned LEB128. */
export function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

/** Signed LEB128 (32-bit values). */
export function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) return [...out, b];
    out.push(b | 0x80);
  }
}

const name = (s: string) => { const b = [...Buffer.from(s, 'utf8')]; return [...uleb(b.length), ...b]; };
const vec = (items: number[][]) => [...uleb(items.length), ...items.flat()];
const section = (id: number, body: number[]) => [id, ...uleb(body.length), ...body];

/** Instructions, as byte sequences to concatenate into a function body. */
export const op = {
  block: [0x02, 0x40], loop: [0x03, 0x40], end: [0x0b],
  br: (depth: number) => [0x0c, ...uleb(depth)],
  brIf: (depth: number) => [0x0d, ...uleb(depth)],
  get: (local: number) => [0x20, ...uleb(local)],
  set: (local: number) => [0x21, ...uleb(local)],
  tee: (local: number) => [0x22, ...uleb(local)],
  i32Const: (n: number) => [0x41, ...sleb(n)],
  i32Add: [0x6a], i32Mul: [0x6c], i32And: [0x71], i32Xor: [0x73], i32Shl: [0x74], i32ShrU: [0x76], i32GeU: [0x4f],
  select: [0x1b],
  f32Const: (x: number) => [0x43, ...new Uint8Array(Float32Array.of(x).buffer)],
  // Memory arguments: alignment hint 0 (tensors are only 4-byte aligned for sure), offset 0.
  f32Load: [0x2a, 0, 0], f32Store: [0x38, 0, 0],
  f32Sqrt: [0x91], f32Add: [0x92], f32Sub: [0x93], f32Mul: [0x94], f32Div: [0x95],
  v128Load: [0xfd, ...uleb(0x00), 0, 0], v128Store: [0xfd, ...uleb(0x0b), 0, 0],
  f32x4Splat: [0xfd, ...uleb(0x13)],
  f32x4Sqrt: [0xfd, ...uleb(0xe3)], f32x4Add: [0xfd, ...uleb(0xe4)], f32x4Sub: [0xfd, ...uleb(0xe5)],
  f32x4Mul: [0xfd, ...uleb(0xe6)], f32x4Div: [0xfd, ...uleb(0xe7)],
  f64Add: [0xa0], f64Mul: [0xa2], f64PromoteF32: [0xbb],
  v128Const: (lanes: Int32Array) => [0xfd, ...uleb(0x0c), ...new Uint8Array(lanes.buffer, lanes.byteOffset, 16)],
  i32x4Splat: [0xfd, ...uleb(0x11)], i32x4GeU: [0xfd, ...uleb(0x40)],
  v128And: [0xfd, ...uleb(0x4e)], v128Xor: [0xfd, ...uleb(0x51)],
  i32x4ShrU: [0xfd, ...uleb(0xad)], i32x4Add: [0xfd, ...uleb(0xae)], i32x4Mul: [0xfd, ...uleb(0xb5)],
  /** Lanes 2 and 3 of the first of two f32x4 moved to lanes 0 and 1 (i8x16.shuffle: bytes 8-15, 0-7). */
  f32x4HighToLow: [0xfd, ...uleb(0x0d), 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7],
  f64x2PromoteLowF32x4: [0xfd, ...uleb(0x5f)],
  f64x2ExtractLane: (lane: number) => [0xfd, ...uleb(0x21), lane],
  f64x2Splat: [0xfd, ...uleb(0x14)],
  f64x2Add: [0xfd, ...uleb(0xf0)], f64x2Mul: [0xfd, ...uleb(0xf2)],
};

/**
 * The ends of a float32 loop over `n` elements, in bytes: `end` after all of them, `end4` after the
 * whole vectors of four (every kernel runs a vector loop to end4, then a scalar one to end).
 */
export function byteEnds(n: number, end4: number, end: number): number[][] {
  return [
    op.get(n), op.i32Const(2), op.i32Shl, op.set(end),
    op.get(n), op.i32Const(-4), op.i32And, op.i32Const(2), op.i32Shl, op.set(end4),
  ];
}

/** `body` for each byte offset `off` below `end`, `off` advancing by `step` bytes after each. */
export function offsetLoop(off: number, end: number, step: number, body: number[][]): number[][] {
  return [
    op.block, op.loop,
    op.get(off), op.get(end), op.i32GeU, op.brIf(1),
    ...body,
    op.get(off), op.i32Const(step), op.i32Add, op.set(off),
    op.br(0), op.end, op.end,
  ];
}

export interface WasmFunction {
  name: string;
  params: ValType[];
  /** At most one result; none for functions that only write to memory. */
  results?: ValType[];
  locals: ValType[];
  body: number[][];
}

/** A module importing `env.memory` and exporting `functions`. */
export function encodeModule(functions: WasmFunction[]): Uint8Array<ArrayBuffer> {
  const types = functions.map((f) => [0x60, ...vec(f.params.map((t) => [t])), ...vec((f.results ?? []).map((t) => [t]))]);
  const imports = [[...name('env'), ...name('memory'), 0x02, 0x00, ...uleb(1)]];
  const code = functions.map((f) => {
    const body = [...vec(f.locals.map((t) => [...uleb(1), t])), ...f.body.flat(), ...op.end];
    return [...uleb(body.length), ...body];
  });
  return Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, vec(types)),
    ...section(2, vec(imports)),
    ...section(3, vec(functions.map((_, i) => uleb(i)))),
    ...section(7, vec(functions.map((f, i) => [...name(f.name), 0x00, ...uleb(i)]))),
    ...section(10, vec(code)),
  ]);
}
