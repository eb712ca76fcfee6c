// Sampling a data set: the first n rows, n rows at random, or n rows of each label.
// Random draws use MT19937 (@stdlib) seeded like Python's random.seed(int) (init_by_array), and an
// unbiased bounded integer by rejection; the draw is deterministic for a seed on every platform.
// Sampled rows keep their file order.
import mt19937 from '@stdlib/random-base-mt19937';
import { UserError } from '../errors.ts';
import type { Example } from '../types.ts';
import type { Sample } from './spec.ts';

export interface SampleResult {
  kept: Example[];
  /** A reason for the rows left out, e.g. "not sampled (random 100, seed 1)". */
  reason: string;
  left: number;
}

export function applySample(examples: Example[], sample: Sample, origin: string): SampleResult {
  const { mode, n, seed } = sample;
  const reason = mode === 'first' ? `not sampled (first ${n})` : `not sampled (${mode} ${n}, seed ${seed})`;
  let kept: Example[];
  switch (mode) {
    case 'first':
      kept = examples.slice(0, n);
      break;
    case 'random':
      kept = drawInOrder(examples, n, makeRandom(seed));
      break;
    case 'perClass': {
      const byLabel = new Map<string, Example[]>();
      for (const e of examples) {
        const key = e.label ?? '';
        const list = byLabel.get(key);
        if (list) list.push(e);
        else byLabel.set(key, [e]);
      }
      const random = makeRandom(seed);
      const chosen = new Set<Example>();
      // Classes in sorted order so the draw does not depend on which label the file starts with.
      for (const label of [...byLabel.keys()].sort()) {
        const members = byLabel.get(label)!;
        if (members.length < n) {
          throw new UserError(`${origin}: sample perClass ${n}: label "${label}" has only ${members.length} rows`);
        }
        for (const e of drawInOrder(members, n, random)) chosen.add(e);
      }
      kept = examples.filter((e) => chosen.has(e));
      break;
    }
  }
  return { kept, reason, left: examples.length - kept.length };
}

type Random = (bound: number) => number;

function makeRandom(seed: number): Random {
  const next = mt19937.factory({ seed: [seed] });
  // Rejection keeps the integers uniform: draws past the last whole multiple of `bound` are redrawn.
  return (bound) => {
    const limit = 0x100000000 - (0x100000000 % bound);
    for (;;) {
      const x = next();
      if (x < limit) return x % bound;
    }
  };
}

/** n items drawn without replacement (a partial Fisher-Yates shuffle), returned in input order. */
function drawInOrder<T>(items: T[], n: number, random: Random): T[] {
  if (n >= items.length) return items.slice();
  const idx = items.map((_, k) => k);
  for (let k = 0; k < n; k++) {
    const j = k + random(idx.length - k);
    [idx[k], idx[j]] = [idx[j], idx[k]];
  }
  return idx.slice(0, n).sort((a, b) => a - b).map((k) => items[k]);
}
