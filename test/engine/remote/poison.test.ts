// A misbehaving server between genstudy and a healthy one (a real HTTP proxy on 127.0.0.1 in front
// of a real `genstudy serve`) must not poison the evaluation cache: answers that are not
// log-probabilities are refused before anything is cached, and answers that look right but are not
// (which no check can see) can be dropped from the cache by the server that gave them, so a rerun
// against a healthy server recomputes them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { countRows, dumpStore, tempDir, tinyRun } from '../../evaluate/helpers.ts';
import { startServe, type ServeProcess } from './serve-process.ts';
import { assertStoresAgree } from './store-compare.ts';
import { genstudy } from '../../support/genstudy-in-process.ts';

type Mode = 'honest' | 'positive' | 'swapped';

let serve: ServeProcess;
let modelDir: string;
let proxy: { url: string; mode: Mode; close(): Promise<void> };

/** Forwards every request to the healthy server; in a bad mode, rewrites the top log-probs keyed by token id. */
async function startProxy(target: string): Promise<typeof proxy> {
  const state = { mode: 'honest' as Mode };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => { body += c.toString(); });
    req.on('end', async () => {
      let upstream: Response;
      try {
        upstream = await fetch(`${target}${req.url}`,
          { method: req.method, body: req.method === 'POST' ? body : undefined, headers: { 'content-type': 'application/json' } });
      } catch {
        res.writeHead(502).end(); // the healthy server is gone (the test is over)
        return;
      }
      let text = await upstream.text();
      const byId = req.method === 'POST' && body.includes('"return_tokens_as_token_ids":true');
      if (byId && upstream.ok && state.mode !== 'honest') {
        const answer = JSON.parse(text) as { choices: { logprobs: { top_logprobs: Record<string, number>[] } }[] };
        for (const c of answer.choices) {
          const top = c.logprobs?.top_logprobs?.[0];
          if (!top) continue; // genstudy serve answered end-of-text: no generated token
          const keys = Object.keys(top);
          const values = keys.map((k) => top[k]);
          // positive: what a broken proxy sent (exp instead of log); swapped: every value moved to another token.
          const out = state.mode === 'positive' ? values.map((v) => Math.exp(v)) : [...values].reverse();
          keys.forEach((k, i) => { top[k] = out[i]; });
        }
        text = JSON.stringify(answer);
      }
      res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
      res.end(text);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get mode() { return state.mode; },
    set mode(m: Mode) { state.mode = m; },
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

before(async () => {
  modelDir = path.join(tinyRun([100], 19, 'poison-run'), 'step-100');
  serve = await startServe(modelDir);
  proxy = await startProxy(serve.url);
});
after(async () => { await proxy?.close(); await serve?.stop(); });

const evaluate = (store: string, extra: string[]) => genstudy(
  ['evaluate', '--model', modelDir, '--test-set', 'synthetic:in-domain,negation-broken', '--synthetic-size', '24', '--store', store, ...extra]);

test('positive "log-probs" from a server are refused before anything is cached', async () => {
  const store = path.join(tempDir(), 'positive.sqlite');
  proxy.mode = 'positive';
  const r = await evaluate(store, ['--remote', proxy.url, '--remote-retries', '0']);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, new RegExp(`the server at ${proxy.url}.*top_logprobs\\[0\\]\\["token_id:\\d+"\\] is 0\\.\\d+, not a log-probability`));
  assert.equal(countRows(store, 'evaluation_cache'), 0, 'nothing cached');
  assert.equal(countRows(store, 'scores'), 0, 'nothing scored');
  const bad = await evaluate(store, ['--remote', proxy.url, '--remote-timeout', '0']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--remote-timeout 0: expected a number > 0/);
});

test('answers from a server that looked right but were wrong are dropped by server, and a rerun on a healthy server equals the ' +
  'built-in engine', async () => {
  const plain = path.join(tempDir(), 'plain.sqlite');
  const store = path.join(tempDir(), 'poisoned.sqlite');
  assert.equal((await evaluate(plain, [])).code, 0);
  proxy.mode = 'swapped';
  const poisoned = await evaluate(store, ['--remote', proxy.url]);
  assert.equal(poisoned.code, 0, poisoned.stderr);
  const cached = countRows(store, 'evaluation_cache');
  assert.ok(cached > 0);
  // The healthy rerun answers from the poisoned cache: this is what dropping is for.
  const before = dumpStore(store);
  assert.notDeepEqual(before.predictions, dumpStore(plain).predictions, 'the swapped answers changed predictions');

  const listed = await genstudy(['cache', 'list', '--store', store]);
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, new RegExp(`${proxy.url}.*\\b${cached}\\b`));
  const refused = await genstudy(['cache', 'drop', '--store', store]);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /say what to drop/);
  const other = await genstudy(['cache', 'drop', '--store', store, '--source', 'http://127.0.0.1:1']);
  assert.match(other.stdout, /dropped 0 cached answers/);
  const dropped = await genstudy(['cache', 'drop', '--store', store, '--source', `${proxy.url}/v1`]);
  assert.equal(dropped.code, 0, dropped.stderr);
  assert.match(dropped.stdout, new RegExp(`dropped ${cached} cached answers`));
  assert.equal(countRows(store, 'evaluation_cache'), 0);

  const healthy = await evaluate(store, ['--remote', serve.url]);
  assert.equal(healthy.code, 0, healthy.stderr);
  assertStoresAgree(dumpStore(plain), dumpStore(store));
});
