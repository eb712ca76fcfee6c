// Progress of a long analysis on stderr: the analysis is synchronous and can take minutes at a
// real sweep's size (each run's test, its calibration, then each run again under every robustness
// choice), so after a few quiet seconds a line says how far it is and about how long is left, at
// most every ten seconds. A short analysis prints nothing.
import type { AnalysisProgress } from '../analyze/analysis.ts';

const FIRST_AFTER_MS = 5_000;
const EVERY_MS = 10_000;

export function analysisProgress(write: (line: string) => void, now: () => number = Date.now): AnalysisProgress {
  const started = now();
  let last = started;
  let printed = false;
  return (done, total) => {
    const t = now();
    if (done === total && !printed) return;
    if (t - last < (printed ? EVERY_MS : FIRST_AFTER_MS)) return;
    last = t;
    printed = true;
    const elapsed = (t - started) / 1000;
    const left = done < total ? `, about ${Math.ceil((elapsed * (total - done)) / done)} s left` : '';
    write(`genstudy: analysing: ${done} of ${total} run analyses (each run, then each again under every robustness choice), ` +
      `${Math.round(elapsed)} s${left}\n`);
  };
}
