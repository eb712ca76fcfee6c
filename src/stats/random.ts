/**
 * Seeded pseudo-random numbers for the bootstrap and permutation tests: the 32-bit Mersenne Twister
 * of @stdlib/random-base-mt19937 (the generator numpy's legacy RandomState also uses), seeded by
 * init_by_array with the seed's low and high 32-bit words, so any non-negative integer up to 2^53 is
 * a valid seed (0 included) and the same seed always gives the same stream.
 */
import mt19937 from '@stdlib/random-base-mt19937';
import { UserError } from '../errors.ts';

export interface Random {
  /** Uniform on [0, 1) with 53 random bits. */
  uniform(): number;
  /** Uniform integer on [0, n). */
  int(n: number): number;
  /** Standard normal (Box-Muller), for simulations in tests and benchmarks. */
  normal(): number;
}

export function createRandom(seed: number): Random {
  if (!Number.isSafeInteger(seed) || seed < 0) {
    throw new UserError(`seed must be a non-negative integer, got ${seed}`);
  }
  const words = new Uint32Array([seed >>> 0, Math.floor(seed / 2 ** 32)]);
  const gen = mt19937.factory({ seed: words as unknown as number }) as unknown as { normalized: () => number };
  const uniform = (): number => gen.normalized();
  let spare: number | null = null;
  return {
    uniform,
    int: (n: number): number => Math.floor(uniform() * n),
    normal(): number {
      if (spare !== null) { const s = spare; spare = null; return s; }
      let u = 0;
      while (u === 0) u = uniform();
      const v = uniform();
      const radius = Math.sqrt(-2 * Math.log(u));
      spare = radius * Math.sin(2 * Math.PI * v);
      return radius * Math.cos(2 * Math.PI * v);
    },
  };
}
