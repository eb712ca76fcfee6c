// The study's progress view, driven as run-study drives it (runs, training steps, checkpoint
// evaluations) with a fake clock: without a terminal, one line per evaluated checkpoint naming
// the run and the step, no rate when every answer came from the cache, and the time left for the
// study; on a terminal, one live area redrawn in place that leaves nothing behind per checkpoint.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LiveArea, LogLines, formatDuration, studyProgress, type StudyProgress } from '../../src/pipeline/study-progress.ts';

/** Two runs of 100 steps, a checkpoint every 50 steps evaluated on 2 sets of 10 examples; the second run all cached. */
function drive(p: StudyProgress, clock: { t: number }): void {
  for (let run = 0; run < 2; run++) {
    p.stages.run(run, 2, `model--data--ft--seed${run + 1}`);
    p.trainProgress.start(100, 0);
    for (let step = 0; step <= 100; step += 5) {
      if (step > 0) {
        clock.t += 1000;
        p.trainProgress.step({ step, loss: 1 / step, learningRate: 1e-3, gradNorm: 1, tokensPerSecond: 100, epoch: 0 }, 100);
      }
      if (step % 50 === 0) {
        const cached = run === 1;
        p.stages.evaluate([step]);
        p.evalProgress.start({ sets: [{ id: 'id', total: 10, toCompute: cached ? 0 : 10 }, { id: 'ood', total: 10, toCompute: cached ? 0 : 10 }] });
        for (const set of ['id', 'ood']) {
          clock.t += cached ? 1 : 500;
          p.evalProgress.advance(set, 10, !cached);
        }
        p.evalProgress.stop();
      }
    }
    p.trainProgress.stop();
  }
  p.finish();
}

test('without a terminal: one line per evaluated checkpoint naming run and step; no rate for cached answers', () => {
  const clock = { t: 0 };
  const lines: string[] = [];
  drive(new LogLines((l) => lines.push(l), () => clock.t), clock);
  const checkpoints = lines.filter((l) => / step \d+: /.test(l));
  assert.equal(checkpoints.length, 6, lines.join('\n'));
  assert.match(checkpoints[1], new RegExp(
    /^genstudy: run 1\/2 model--data--ft--seed1 step 50: 20 examples \(20 by the model, 20 examples\/s\); /.source +
    /training loss 0\.0200; study about .* left$/.source));
  for (const l of checkpoints.slice(3)) {
    assert.match(l, /run 2\/2 model--data--ft--seed2 step \d+: 20 examples \(all from the cache\)/);
    assert.doesNotMatch(l, /examples\/s/);
  }
  assert.equal(lines.filter((l) => /: training, 100 steps$/.test(l)).length, 2, 'one line when a run starts');
  assert.equal(lines.length, 8, 'nothing per training step');
});

test('on a terminal: one live area redrawn in place; only notes stay on the screen', () => {
  const clock = { t: 0 };
  // A tiny terminal: lines on the screen; "ESC[nA ESC[0J" removes the last n.
  const screen: string[] = [];
  let draws = 0;
  const stream = {
    columns: 120,
    write(chunk: string) {
      // eslint-disable-next-line no-control-regex -- the terminal's escape codes are what is checked
      const m = /^\x1b\[(\d+)A\x1b\[0J/.exec(chunk);
      if (m) {
        screen.splice(screen.length - Number(m[1]));
        chunk = chunk.slice(m[0].length);
      }
      if (chunk) { draws++; screen.push(...chunk.replace(/\n$/, '').split('\n')); }
      return true;
    },
  } as unknown as NodeJS.WritableStream;
  const p = new LiveArea(stream, () => clock.t);
  p.stages.run(0, 2, 'r1');
  p.trainProgress.start(100, 0);
  clock.t += 30_000;
  p.trainProgress.step({ step: 25, loss: 0.5, learningRate: 1e-3, gradNorm: 1, tokensPerSecond: 100, epoch: 0 }, 100);
  assert.match(screen[0], /^study: run 1\/2 r1 · about 3 min 30 s left · 30 s so far$/);
  assert.match(screen[1], /^  train\s+\[#####-+\] step 25\/100 · loss 0\.5000$/);
  p.log('a note for the user');
  drive(p, clock);
  assert.ok(draws > 10, 'redrawn as the study moves');
  assert.deepEqual(screen, ['a note for the user'], 'after the study only the notes are left');
});

test('durations read as a person says them', () => {
  assert.equal(formatDuration(42.4), '42 s');
  assert.equal(formatDuration(125), '2 min 05 s');
  assert.equal(formatDuration(3 * 3600 + 7 * 60), '3 h 07 min');
  assert.equal(formatDuration(Infinity), '?');
});

test('the training bar advances with the checkpoints evaluated between logged steps, and no time left is shown without a basis', () => {
  const clock = { t: 0 };
  const lines: string[] = [];
  const stream = {
    columns: 120,
    write(chunk: string) {
      // eslint-disable-next-line no-control-regex -- the terminal's cursor-up and clear-below sequences
      lines.push(...chunk.replace(/^\x1b\[\d+A\x1b\[0J/, '').split('\n').filter(Boolean));
      return true;
    },
  } as unknown as NodeJS.WritableStream;
  const p = new LiveArea(stream, () => clock.t);
  p.stages.run(0, 3, 'r1', { atStart: true, logSpaced: 14, every: 50, atEnd: true });
  p.trainProgress.start(400, 0);
  for (const step of [0, 1, 2, 3]) {
    clock.t += 200;
    p.stages.evaluate([step]);
    p.evalProgress.start({ sets: [{ id: 'id', total: 10, toCompute: 10 }] });
    clock.t += 200;
    p.evalProgress.advance('id', 10, true);
    p.evalProgress.stop();
  }
  const last = (re: RegExp) => lines.filter((l) => re.test(l)).at(-1) ?? '';
  assert.match(last(/^  train/), /step 3\/400/, 'not "step 0/400" while checkpoints 1-3 are evaluated');
  assert.doesNotMatch(last(/^study:/), /left/, '3 steps are no basis for 397 more');
});

test('run ids and notes carrying terminal escapes are printed escaped, as lines and in the live area', () => {
  for (const tty of [false, true]) {
    const out: string[] = [];
    const stream = { columns: 120, write(chunk: string) { out.push(chunk); return true; } } as unknown as NodeJS.WriteStream;
    const p = studyProgress(stream, tty);
    p.stages.run(0, 1, 'r\x1b[31m1');
    p.log('note \x1b]0;title\x07');
    const text = out.join('');
    // the live area names the run at once; plain lines name it with its first training or evaluation line
    if (tty) assert.ok(text.includes('r\\x1b[31m1'), text);
    assert.ok(text.includes('note \\x1b]0;title\\x07'), text);
    assert.ok(!text.includes('\x1b[31m') && !text.includes('\x07'), 'no raw escape from a name');
  }
});
