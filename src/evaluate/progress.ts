// Progress of an evaluation: examples done, examples per second (model work only: answers from
// the cache are counted as done but not in the rate), and time left, per test set and overall.
// On a terminal: cli-progress bars on stderr; otherwise plain log lines on stderr at most every few
// seconds, so logs of long runs stay readable.
import cliProgress from 'cli-progress';
import { terminalSafe } from '../terminal-safe.ts';

export interface ProgressPlan {
  /** Per test set: examples in all its cells over all checkpoints, and how many need the model. */
  sets: { id: string; total: number; toCompute: number }[];
}

export interface ProgressSink {
  start(plan: ProgressPlan): void;
  /** n examples of a test set are done; computed: by the model (else from the cache). */
  advance(setId: string, n: number, computed: boolean): void;
  /** A line for the user (kept above the bars on a terminal). */
  note(line: string): void;
  stop(): void;
}

interface Counter { total: number; toCompute: number; done: number; computed: number }

function formatSeconds(s: number): string {
  if (!Number.isFinite(s)) return '?';
  if (s < 60) return `${Math.ceil(s)} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
  return `${Math.floor(s / 3600)} h ${Math.round((s % 3600) / 60)} min`;
}

/** Shared bookkeeping: rates and time left from counts and the clock. */
class Tally {
  readonly sets = new Map<string, Counter>();
  readonly all: Counter = { total: 0, toCompute: 0, done: 0, computed: 0 };
  private started = 0;

  constructor(plan: ProgressPlan, private readonly now: () => number) {
    for (const s of plan.sets) {
      this.sets.set(s.id, { total: s.total, toCompute: s.toCompute, done: 0, computed: 0 });
      this.all.total += s.total;
      this.all.toCompute += s.toCompute;
    }
    this.started = now();
  }

  add(setId: string, n: number, computed: boolean): Counter {
    const c = this.sets.get(setId)!;
    c.done += n;
    this.all.done += n;
    if (computed) { c.computed += n; this.all.computed += n; }
    return c;
  }

  rate(): number {
    const seconds = (this.now() - this.started) / 1000;
    return seconds > 0 ? this.all.computed / seconds : 0;
  }

  /** Seconds left for a counter at its own rate so far (test sets are interleaved, so each has its share of the engine). */
  left(c: Counter): number {
    const remaining = c.toCompute - c.computed;
    if (remaining <= 0) return 0;
    const seconds = (this.now() - this.started) / 1000;
    const r = seconds > 0 ? c.computed / seconds : 0;
    return r > 0 ? remaining / r : Infinity;
  }
}

/** Plain log lines: one summary line plus one line per test set, at most every `intervalMs`. */
export class LogProgress implements ProgressSink {
  private tally?: Tally;
  private lastPrint = 0;

  constructor(
    private readonly write: (line: string) => void = (l) => process.stderr.write(terminalSafe(l) + '\n'),
    private readonly intervalMs = 5000,
    private readonly now: () => number = () => Date.now(),
  ) {}

  start(plan: ProgressPlan): void {
    this.tally = new Tally(plan, this.now);
    this.lastPrint = this.now();
    const cached = this.tally.all.total - this.tally.all.toCompute;
    this.write(`evaluate: ${this.tally.all.total} examples to score over ${plan.sets.length} test sets; ${cached} answered from the ` +
      `cache, ${this.tally.all.toCompute} need the model`);
  }

  advance(setId: string, n: number, computed: boolean): void {
    this.tally!.add(setId, n, computed);
    if (this.now() - this.lastPrint >= this.intervalMs) this.print();
  }

  note(line: string): void {
    this.write(line);
  }

  private print(): void {
    const t = this.tally!;
    this.lastPrint = this.now();
    // A rate only for model work: answers from the cache take no time worth a rate.
    const pace = t.all.computed > 0 ? `${t.rate().toFixed(1)} examples/s, about ${formatSeconds(t.left(t.all))} left`
      : t.all.toCompute === 0 ? 'all from the cache' : 'starting';
    this.write(`evaluate: ${t.all.done}/${t.all.total} examples, ${pace}`);
    for (const [id, c] of t.sets) this.write(
      `  ${id}: ${c.done}/${c.total}${c.done < c.total ? `, about ${formatSeconds(t.left(c))} left` : ' done'}`);
  }

  stop(): void {
    if (this.tally) this.print();
  }
}

/** cli-progress bars: one per test set and one overall. */
export class BarProgress implements ProgressSink {
  private tally?: Tally;
  private multi?: cliProgress.MultiBar;
  private readonly bars = new Map<string, cliProgress.SingleBar>();
  private overall?: cliProgress.SingleBar;

  constructor(private readonly stream: NodeJS.WritableStream = process.stderr) {}

  start(plan: ProgressPlan): void {
    this.tally = new Tally(plan, () => Date.now());
    const width = Math.max(7, ...plan.sets.map((s) => s.id.length));
    this.multi = new cliProgress.MultiBar({
      stream: this.stream, hideCursor: true, clearOnComplete: false, etaBuffer: 50,
      format: `{name} {bar} {value}/{total} | {rate}/s | {left} left`,
    }, cliProgress.Presets.shades_classic);
    for (const s of plan.sets) this.bars.set(s.id, this.multi.create(s.total, 0, { name: terminalSafe(s.id).padEnd(width), rate: '-', left: '?' }));
    this.overall = this.multi.create(this.tally.all.total, 0, { name: 'overall'.padEnd(width), rate: '-', left: '?' });
  }

  advance(setId: string, n: number, computed: boolean): void {
    const t = this.tally!;
    const c = t.add(setId, n, computed);
    const rate = t.all.computed > 0 ? t.rate().toFixed(1) : '-';
    this.bars.get(setId)!.update(c.done, { rate, left: formatSeconds(t.left(c)) });
    this.overall!.update(t.all.done, { rate, left: formatSeconds(t.left(t.all)) });
  }

  note(line: string): void {
    if (!this.multi) { this.stream.write(terminalSafe(line) + '\n'); return; }
    // cli-progress prints logged lines at its next redraw; redraw now so none is lost at stop.
    this.multi.log(terminalSafe(line) + '\n');
    this.multi.update();
  }

  stop(): void {
    if (!this.multi) return;
    this.multi.update();
    this.multi.stop();
    this.multi = undefined;
  }
}

/** Bars on a terminal, log lines otherwise. */
export function progressFor(stream: NodeJS.WriteStream = process.stderr): ProgressSink {
  return stream.isTTY ? new BarProgress(stream) : new LogProgress((l) => stream.write(terminalSafe(l) + '\n'));
}

/** Discards progress (library use and tests that do not look at it). */
export const NO_PROGRESS: ProgressSink = { start() {}, advance() {}, note() {}, stop() {} };
