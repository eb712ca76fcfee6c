// Simulated per-checkpoint scores with a known correlation structure, for checking the analysis
// against a truth (tests and bench/analyze.ts; no genstudy command uses it, so it lives here).
// Each run ("model") has an in-domain learning curve and a latent shortcut trajectory (how much
// the model leans on a spurious cue, which rises and falls independently of ID progress). Every OOD set's accuracy is
//   base + idLoading * ID(t) + cueLoading * cue(t) + noise,
// so, with ID regressed out, sets with cue loadings of the same sign correlate positively, of
// opposite sign negatively, and a set with no cue loading correlates with none.

import { mulberry32 } from '../../src/seeded-random.ts';

export interface SimulatedSet { id: string; cueLoading: number; idLoading: number; base: number }

export interface SimulationOptions {
  seed: number;
  runs: number;
  steps: number;
  /** Noise standard deviation on every score (0.005: the sampling error of accuracy near 0.7 on about 8000 examples). */
  noise: number;
  sets: SimulatedSet[];
  controlId: string;
}

export const DEFAULT_SIMULATED_SETS: SimulatedSet[] = [
  { id: 'overlap-consistent', cueLoading: 0.12, idLoading: 0.5, base: 0.35 },
  { id: 'negation-consistent', cueLoading: 0.1, idLoading: 0.45, base: 0.38 },
  { id: 'overlap-broken', cueLoading: -0.12, idLoading: 0.4, base: 0.4 },
  { id: 'negation-broken', cueLoading: -0.1, idLoading: 0.4, base: 0.42 },
  { id: 'vocabulary-shift', cueLoading: 0, idLoading: 0.6, base: 0.3 },
];

export interface SimulatedRow { run: string; step: number; test_set: string; metric: string; value: number; model: string; seed: number }

export function simulateScores(opts: Partial<SimulationOptions> = {}): SimulatedRow[] {
  const o: SimulationOptions = {
    seed: 1, runs: 4, steps: 40, noise: 0.005, sets: DEFAULT_SIMULATED_SETS, controlId: 'in-domain', ...opts,
  };
  const rng = mulberry32(o.seed);
  const normal = () => {
    const u = Math.max(rng(), 1e-12);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng());
  };
  const rows: SimulatedRow[] = [];
  for (let r = 0; r < o.runs; r++) {
    const run = `model-${String.fromCharCode(97 + r)}`;
    const rate = 0.08 + 0.1 * rng();
    // A smooth random walk: the shortcut's use wanders independently of ID progress.
    let cue = 0;
    let drift = 0;
    for (let i = 0; i < o.steps; i++) {
      const step = i * 100;
      const id = 0.5 + 0.45 * (1 - Math.exp(-rate * i));
      drift = 0.8 * drift + 0.35 * normal();
      cue += drift;
      const cueLevel = Math.tanh(cue / 3);
      rows.push({ run, step, test_set: o.controlId, metric: 'accuracy', value: clamp(id + o.noise * normal()), model: run, seed: o.seed });
      for (const s of o.sets) {
        const value = s.base + s.idLoading * id + s.cueLoading * cueLevel + o.noise * normal();
        rows.push({ run, step, test_set: s.id, metric: 'accuracy', value: clamp(value), model: run, seed: o.seed });
      }
    }
  }
  return rows;
}

function clamp(x: number): number {
  return Math.min(1, Math.max(0, x));
}

/** The sign of the partial correlation each pair of simulated sets should show. */
export function expectedSign(a: SimulatedSet, b: SimulatedSet): -1 | 0 | 1 {
  const s = Math.sign(a.cueLoading * b.cueLoading);
  return s === 0 ? 0 : (s as -1 | 1);
}
