// Progress of a whole study (genstudy run / demo), as one view over its runs and stages.
// On a terminal: one live area redrawn in place (study -> run -> stage) with the time left for the
// whole study; notes are printed above it, and nothing is left behind per checkpoint. Without a
// terminal (CI logs, files): one line when a run starts and one line per evaluated checkpoint,
// naming the run and the step; no per-step training lines.
// The time left is study-eta.ts's: measured throughput per stage times the work ahead, shown only
// once each kind of work ahead has been measured. The training bar follows the checkpoints too
// (a checkpoint at step s means s steps are done), since the trainer reports only every few steps.
import type { ProgressSink as EvalProgress, ProgressPlan } from '../evaluate/index.ts';
import type { ProgressSink as TrainProgress } from '../train/index.ts';
import type { LogEntry } from '../train/checkpoints.ts';
import type { CheckpointPolicy } from '../train/index.ts';
import { StudyEta } from './study-eta.ts';
import { terminalSafe } from '../terminal-safe.ts';

/** What run-study tells the progress view besides the training and evaluation sinks. */
export interface StudyStages {
  /** Run `index` (0-based) of `total` starts; `checkpoints`: the policy its training saves by (for the time left). */
  run(index: number, total: number, id: string, checkpoints?: CheckpointPolicy): void;
  /** These checkpoints of the current run are evaluated next. */
  evaluate(steps: readonly number[]): void;
}

export interface StudyProgress {
  log: (line: string) => void;
  trainProgress: TrainProgress;
  evalProgress: EvalProgress;
  stages: StudyStages;
  /** Clears the live area (call once the study is done or failed). */
  finish(): void;
}

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '?';
  if (seconds < 60) return `${Math.max(1, Math.round(seconds))} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${String(Math.round(seconds % 60)).padStart(2, '0')} s`;
  return `${Math.floor(seconds / 3600)} h ${String(Math.round((seconds % 3600) / 60)).padStart(2, '0')} min`;
}

/** The shared bookkeeping of both views: where the study is, and how much of it is done. */
class StudyState {
  runIndex = -1;
  runs = 0;
  runId = '';
  trainTotal = 0;
  trainDone = 0;
  trainStartedAt = 0;
  lastLoss: number | undefined;
  evalSteps: readonly number[] = [];
  evalTotal = 0;
  evalDone = 0;
  evalComputed = 0;
  evalToCompute = 0;
  evalStartedAt = 0;
  private readonly startedAt: number;
  private readonly eta: StudyEta;

  constructor(private readonly now: () => number) {
    this.startedAt = now();
    this.eta = new StudyEta(now);
  }

  /** Seconds left for the study, or undefined until there is a basis for it. */
  secondsLeft(): number | undefined {
    return this.eta.secondsLeft();
  }

  elapsed(): number {
    return (this.now() - this.startedAt) / 1000;
  }

  // The transitions both renderers share (they differ only in what they show).
  startRun(index: number, total: number, id: string, checkpoints?: CheckpointPolicy): void {
    Object.assign(this, { runIndex: index, runs: total, runId: id, trainTotal: 0, trainDone: 0, lastLoss: undefined, evalTotal: 0, evalDone: 0 });
    this.eta.startRun(index, total, checkpoints);
  }

  startTraining(total: number, done: number): void {
    Object.assign(this, { trainTotal: total, trainDone: done, trainStartedAt: this.now() });
    this.eta.startTraining(total, done);
  }

  trained(e: LogEntry): void {
    this.trainDone = e.step;
    this.lastLoss = e.loss;
    this.eta.trainedTo(e.step);
  }

  /** The checkpoints evaluated next: one checkpoint while training means training reached its step. */
  evaluateSteps(steps: readonly number[]): void {
    this.evalSteps = steps;
    if (steps.length === 1 && this.trainTotal > 0 && steps[0] <= this.trainTotal) this.trainDone = Math.max(this.trainDone, steps[0]);
  }

  startEvaluation(plan: ProgressPlan): void {
    const total = plan.sets.reduce((n, x) => n + x.total, 0);
    const toCompute = plan.sets.reduce((n, x) => n + x.toCompute, 0);
    Object.assign(this, { evalTotal: total, evalDone: 0, evalComputed: 0, evalToCompute: toCompute, evalStartedAt: this.now() });
    this.eta.startEvaluation(this.evalSteps, toCompute);
  }

  evaluated(n: number, computed: boolean): void {
    this.evalDone += n;
    if (computed) this.evalComputed += n;
    this.eta.evaluated(n, computed);
  }

  stopEvaluation(): void {
    this.eta.stopEvaluation();
  }
}

/** The live area on a terminal. */
class LiveArea implements StudyProgress {
  private readonly state: StudyState;
  private lines = 0;
  private lastDraw = 0;

  constructor(private readonly stream: NodeJS.WritableStream, private readonly now: () => number = () => Date.now()) {
    this.state = new StudyState(now);
  }

  private clear(): void {
    if (this.lines > 0) this.stream.write(`\x1b[${this.lines}A\x1b[0J`);
    this.lines = 0;
  }

  private draw(force = false): void {
    const t = this.now();
    if (this.state.runs === 0 || (!force && t - this.lastDraw < 100)) return;
    this.lastDraw = t;
    const s = this.state;
    // A terminal that reports no width (0 under some pseudo-terminals) is taken as 100 columns.
    const columns = (this.stream as NodeJS.WriteStream).columns;
    const width = columns && columns >= 40 ? columns : 100;
    const fit = (line: string) => (line.length > width - 1 ? `${line.slice(0, width - 2)}…` : line);
    const left = s.secondsLeft();
    const out = [`study: run ${s.runIndex + 1}/${s.runs} ${s.runId}${left !== undefined ? ` · about ${formatDuration(left)} left` : ''} ` +
      `· ${formatDuration(s.elapsed())} so far`];
    if (s.trainTotal > 0) {
      out.push(`  train     ${bar(s.trainDone / s.trainTotal)} step ` +
        `${s.trainDone}/${s.trainTotal}${s.lastLoss !== undefined ? ` · loss ${s.lastLoss.toFixed(4)}` : ''}`);
    }
    if (s.evalTotal > 0) {
      const steps = stepsText(s.evalSteps);
      const rate = s.evalComputed > 0 ? ` · ${(s.evalComputed / Math.max((this.now() - s.evalStartedAt) / 1000, 1e-3)).toFixed(0)} examples/s` : '';
      const cached = s.evalToCompute === 0 ? ' · all from the cache' : '';
      out.push(`  evaluate  ${bar(s.evalDone / s.evalTotal)} ${steps}: ${s.evalDone}/${s.evalTotal} examples${rate}${cached}`);
    }
    this.clear();
    this.stream.write(out.map((l) => fit(terminalSafe(l))).join('\n') + '\n');
    this.lines = out.length;
  }

  log = (line: string): void => {
    this.clear();
    this.stream.write(terminalSafe(line) + '\n');
    this.draw(true);
  };

  stages: StudyStages = {
    run: (index, total, id, checkpoints) => {
      this.state.startRun(index, total, id, checkpoints);
      this.draw(true);
    },
    evaluate: (steps) => {
      this.state.evaluateSteps(steps);
    },
  };

  trainProgress: TrainProgress = {
    start: (total, done) => {
      this.state.startTraining(total, done);
      this.draw(true);
    },
    step: (e: LogEntry) => {
      this.state.trained(e);
      this.draw();
    },
    note: (m) => this.log(`train: ${m}`),
    stop: () => this.draw(true),
  };

  evalProgress: EvalProgress = {
    start: (plan: ProgressPlan) => {
      this.state.startEvaluation(plan);
      this.draw(true);
    },
    advance: (_set, n, computed) => {
      this.state.evaluated(n, computed);
      this.draw();
    },
    note: (line) => this.log(line),
    stop: () => {
      this.state.stopEvaluation();
      this.draw(true);
    },
  };

  finish(): void {
    this.clear();
  }
}

/** "step 50", or "24 checkpoints (steps 0-400)" for a run's final pass. */
function stepsText(steps: readonly number[]): string {
  if (steps.length === 1) return `step ${steps[0]}`;
  return `${steps.length} checkpoints (steps ${Math.min(...steps)}-${Math.max(...steps)})`;
}

function bar(fraction: number, width = 20): string {
  const f = Math.max(0, Math.min(1, Number.isFinite(fraction) ? fraction : 0));
  const full = Math.round(f * width);
  return `[${'#'.repeat(full)}${'-'.repeat(width - full)}]`;
}

/** Plain lines without a terminal: one per run start and one per evaluated checkpoint. */
class LogLines implements StudyProgress {
  private readonly state: StudyState;

  constructor(private readonly write: (line: string) => void, private readonly now: () => number = () => Date.now()) {
    this.state = new StudyState(now);
  }

  log = (line: string): void => this.write(line);

  stages: StudyStages = {
    run: (index, total, id, checkpoints) => {
      this.state.startRun(index, total, id, checkpoints);
    },
    evaluate: (steps) => {
      this.state.evaluateSteps(steps);
    },
  };

  trainProgress: TrainProgress = {
    start: (total, done) => {
      this.state.startTraining(total, done);
      this.write(`genstudy: run ${this.state.runIndex + 1}/${this.state.runs} ${this.state.runId}: ` +
        `${done >= total ? `trained (${total} steps)` : `training, ${total} steps${done > 0 ? `, resuming after step ${done}` : ''}`}`);
    },
    step: (e: LogEntry) => this.state.trained(e),
    note: (m) => this.write(`train: ${m}`),
    stop: () => undefined,
  };

  evalProgress: EvalProgress = {
    start: (plan: ProgressPlan) => {
      this.state.startEvaluation(plan);
    },
    advance: (_set, n, computed) => this.state.evaluated(n, computed),
    note: (line) => this.write(line),
    stop: () => {
      const s = this.state;
      s.stopEvaluation();
      if (s.evalTotal === 0) return;
      const steps = stepsText(s.evalSteps);
      const seconds = (this.now() - s.evalStartedAt) / 1000;
      const how = s.evalComputed === 0
        ? 'all from the cache'
        : `${s.evalComputed} by the model${s.evalTotal > s.evalComputed ? `, ${s.evalTotal - s.evalComputed} from the cache` : ''}, ` +
          `${(s.evalComputed / Math.max(seconds, 1e-3)).toFixed(0)} examples/s`;
      const loss = s.trainTotal > 0 && s.lastLoss !== undefined ? `; training loss ${s.lastLoss.toFixed(4)}` : '';
      const left = s.secondsLeft();
      this.write(`genstudy: run ${s.runIndex + 1}/${s.runs} ${s.runId} ${steps}: ${s.evalTotal} examples (${how})${loss}` +
        `${left !== undefined && left > 0 ? `; study about ${formatDuration(left)} left` : ''}`);
      s.evalTotal = 0;
    },
  };

  finish(): void {}
}

/** The live area on a terminal, plain lines otherwise. */
export function studyProgress(stream: NodeJS.WriteStream = process.stderr, tty = stream.isTTY === true): StudyProgress {
  return tty ? new LiveArea(stream) : new LogLines((line) => stream.write(terminalSafe(line) + '\n'));
}

export { LiveArea, LogLines };
