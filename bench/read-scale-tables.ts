// Long score tables at a sweep's size for the reading benches: R runs x S test sets (an in-domain set
// and S - 1 OOD sets) x C checkpoints, one row per score (run, step, test_set, metric, value), values
// written in full precision as pandas writes them. Seeded: the same size gives the same bytes.
//   node --import tsx bench/read-scale-tables.ts /tmp/scores-15m.csv 300 50 1000
import { closeSync, openSync, renameSync, writeSync } from 'node:fs';
import { mulberry32 } from '../src/seeded-random.ts';

export interface TableSize { runs: number; sets: number; checkpoints: number }

/** The test sets' names: the control first. */
export function tableSets(sets: number): string[] {
  return ['in-domain', ...Array.from({ length: sets - 1 }, (_, s) => `ood-${String(s).padStart(2, '0')}`)];
}

/**
 * Writes the table to `path` (under a temporary name, renamed when whole): a saturating in-domain
 * curve per run, each OOD set loading on it and on a wandering cue, plus noise. Returns the rows written.
 */
export function writeLongTable(path: string, size: TableSize, seed = 7): number {
  const rng = mulberry32(seed);
  const normal = () => Math.sqrt(-2 * Math.log(Math.max(rng(), 1e-12))) * Math.cos(2 * Math.PI * rng());
  const names = tableSets(size.sets);
  const load = names.map(() => 0.4 + 0.2 * rng()), base = names.map(() => 0.2 + 0.1 * rng()), cue = names.map((_, s) => [0.1, -0.1, 0][s % 3]);
  const tmp = `${path}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w');
  let chunk = 'run,step,test_set,metric,value\n';
  let rows = 0;
  const flush = () => { writeSync(fd, chunk); chunk = ''; };
  try {
    for (let r = 0; r < size.runs; r++) {
      const run = `run-${String(r).padStart(3, '0')}`;
      const rate = 3 + 4 * rng();
      let level = 0, drift = 0;
      for (let c = 0; c < size.checkpoints; c++) {
        const step = (c + 1) * 50;
        const id = 0.5 + 0.4 * (1 - Math.exp(-rate * c / size.checkpoints));
        drift = 0.8 * drift + 0.3 * normal();
        level += drift;
        for (let s = 0; s < names.length; s++) {
          const v = s === 0 ? id + 0.01 * normal() : base[s] + load[s] * id + cue[s] * Math.tanh(level / 3) + 0.01 * normal();
          chunk += `${run},${step},${names[s]},accuracy,${Math.min(1, Math.max(0, v))}\n`;
          rows++;
        }
        if (chunk.length > 1 << 20) flush();
      }
    }
    flush();
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [path, runs, sets, checkpoints] = process.argv.slice(2);
  const rows = writeLongTable(path, { runs: Number(runs), sets: Number(sets), checkpoints: Number(checkpoints) });
  console.log(`${path}: ${rows} rows`);
}
