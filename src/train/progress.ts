// The training progress line on stderr: a cli-progress bar on a TTY, plain log lines otherwise
// (CI logs, files), one per logged step.
import cliProgress from 'cli-progress';
import type { LogEntry } from './checkpoints.ts';

export interface ProgressSink {
  start(total: number, done: number): void;
  step(entry: LogEntry, total: number): void;
  note(message: string): void;
  stop(): void;
}

function fmt(e: LogEntry): string {
  return `loss ${e.loss.toFixed(4)} lr ${e.learningRate.toExponential(2)} grad-norm ${e.gradNorm.toFixed(3)} ${Math.round(e.tokensPerSecond)} tok/s`;
}

export function progressSink(stream: NodeJS.WriteStream = process.stderr, tty = stream.isTTY === true): ProgressSink {
  if (!tty) {
    return {
      start: (total, done) => stream.write(`train: ${total} steps${done > 0 ? `, resuming after step ${done}` : ''}\n`),
      step: (e, total) => stream.write(`train: step ${e.step}/${total} epoch ${e.epoch} ${fmt(e)}\n`),
      note: (m) => stream.write(`train: ${m}\n`),
      stop: () => undefined,
    };
  }
  const bar = new cliProgress.SingleBar({
    stream, format: 'train [{bar}] {value}/{total} | {stats} | eta {eta_formatted}', hideCursor: true, clearOnComplete: false,
  }, cliProgress.Presets.shades_classic);
  return {
    start: (total, done) => bar.start(total, done, { stats: '' }),
    step: (e) => bar.update(e.step, { stats: fmt(e) }),
    note: (m) => stream.write(`\n${m}\n`),
    stop: () => bar.stop(),
  };
}

/** A sink that writes nothing (library use, tests). */
export const silentProgress: ProgressSink = { start: () => undefined, step: () => undefined, note: () => undefined, stop: () => undefined };
