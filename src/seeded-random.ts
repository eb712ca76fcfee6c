// Seeded randomness for demonstration sampling and the synthetic suite. Written by hand (a
// 32-bit FNV-1a hash and mulberry32) rather than taken from a package because the exact sequence
// is part of what the seed promises: the same seed must give the same bytes on every install, and
// a dependency upgrade must not change them.

/** FNV-1a over the UTF-16 code units of a string, as an unsigned 32-bit integer. */
export function hashString(s: string, basis = 0x811c9dc5): number {
  let h = basis >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [0, n). */
  int(n: number): number;
  pick<T>(items: readonly T[]): T;
  /** A new shuffled copy (Fisher-Yates). */
  shuffle<T>(items: readonly T[]): T[];
}

/** mulberry32 from a 32-bit state: uniform numbers in [0, 1). */
export function mulberry32(state: number): () => number {
  let a = state >>> 0;
  return (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** mulberry32 seeded by a number, or by any strings hashed together (e.g. seed and example id). */
export function seededRandom(...seedParts: (number | string)[]): Random {
  let state = 0x9e3779b9;
  for (const part of seedParts) state = hashString(String(part), state ^ 0x811c9dc5);
  const next = mulberry32(state);
  const int = (n: number): number => {
    if (!Number.isInteger(n) || n <= 0) throw new RangeError(`int(n) needs a positive integer, got ${n}`);
    return Math.floor(next() * n);
  };
  return {
    next,
    int,
    pick: <T>(items: readonly T[]): T => {
      if (items.length === 0) throw new RangeError('pick from an empty list');
      return items[int(items.length)];
    },
    shuffle: <T>(items: readonly T[]): T[] => {
      const out = [...items];
      for (let i = out.length - 1; i > 0; i--) {
        const j = int(i + 1);
        [out[i], out[j]] = [out[j], out[i]];
      }
      return out;
    },
  };
}
