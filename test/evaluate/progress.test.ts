import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { BarProgress, LogProgress, progressFor } from '../../src/evaluate/index.ts';

test('log lines: examples done, examples per second from model work only, time left, per test set and overall', () => {
  let now = 0;
  const lines: string[] = [];
  const p = new LogProgress((l) => lines.push(l), 5000, () => now);
  p.start({ sets: [{ id: 'id-set', total: 100, toCompute: 80 }, { id: 'ood', total: 100, toCompute: 100 }] });
  assert.deepEqual(lines, ['evaluate: 200 examples to score over 2 test sets; 20 answered from the cache, 180 need the model']);
  p.advance('id-set', 20, false);
  now = 1000;
  p.advance('id-set', 20, true);
  assert.equal(lines.length, 1, 'no line before the interval');
  now = 5000;
  p.advance('ood', 30, true);
  assert.deepEqual(lines.slice(1), [
    // 50 examples computed in 5 s: 10/s; 130 left overall.
    'evaluate: 70/200 examples, 10.0 examples/s, about 13 s left',
    // id-set: 20 computed in 5 s (4/s), 60 left; ood: 30 in 5 s (6/s), 70 left.
    '  id-set: 40/100, about 15 s left',
    '  ood: 30/100, about 12 s left',
  ]);
  p.note('a note');
  assert.equal(lines.at(-1), 'a note');
  now = 6000;
  p.advance('id-set', 60, true);
  p.advance('ood', 70, true);
  p.stop();
  assert.deepEqual(lines.slice(-3), ['evaluate: 200/200 examples, 30.0 examples/s, about 0 s left', '  id-set: 100/100 done', '  ood: 100/100 done']);
});

test('on a terminal: one bar per test set and one overall (cli-progress)', () => {
  const stream = Object.assign(new PassThrough(), { isTTY: true, columns: 120, cursorTo() { return true; }, moveCursor() { return true; },
    clearLine() { return true; }, clearScreenDown() { return true; } });
  let out = '';
  stream.on('data', (d) => { out += String(d); });
  const p = progressFor(stream as unknown as NodeJS.WriteStream);
  assert.ok(p instanceof BarProgress);
  p.start({ sets: [{ id: 'in-domain', total: 10, toCompute: 10 }, { id: 'ood-a', total: 10, toCompute: 10 }] });
  p.advance('in-domain', 10, true);
  p.note('hello');
  p.stop();
  assert.match(out, /in-domain/);
  assert.match(out, /ood-a/);
  assert.match(out, /overall/);
  assert.match(out, /hello/);
  assert.ok(!(progressFor(new PassThrough() as unknown as NodeJS.WriteStream) instanceof BarProgress), 'plain lines when not a terminal');
});

test('a test-set name carrying terminal escapes is printed escaped, in log lines and in bars', () => {
  const hostile = 'ood\x1b[2J\x1b]0;owned\x07\u202e';
  for (const tty of [false, true]) {
    const stream = Object.assign(new PassThrough(), tty
      ? { isTTY: true, columns: 120, cursorTo() { return true; }, moveCursor() { return true; }, clearLine() { return true; },
        clearScreenDown() { return true; } }
      : {});
    let out = '';
    stream.on('data', (d) => { out += String(d); });
    const p = progressFor(stream as unknown as NodeJS.WriteStream);
    p.start({ sets: [{ id: hostile, total: 10, toCompute: 10 }] });
    p.advance(hostile, 10, true);
    p.note(`note about ${hostile}`);
    p.stop();
    assert.ok(out.includes('ood\\x1b[2J\\x1b]0;owned\\x07\\u202e'), `${tty ? 'bars' : 'lines'}: the name shown escaped`);
    assert.ok(!out.includes('\x1b[2J') && !out.includes('\u202e'), `${tty ? 'bars' : 'lines'}: no raw escape from the name`);
  }
});
