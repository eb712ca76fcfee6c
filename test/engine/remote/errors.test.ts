// The remote engine against a local fake server (a real HTTP server on 127.0.0.1) that answers
// errors, garbage or nothing: retried where retrying helps, a clear message where it does not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { RemoteEndpoints, RemoteError, RemoteModel } from '../../../src/engine/remote/index.ts';
import type { Tokenizer } from '../../../src/types.ts';

type Handler = (body: { prompt: number[][]; echo?: boolean }, hit: number, res: http.ServerResponse) => void;

async function fakeServer(handler: Handler): Promise<{ url: string; hits: () => number; close: () => Promise<void> }> {
  let hits = 0;
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => { text += c.toString(); });
    req.on('end', () => handler(JSON.parse(text || '{}'), ++hits, res));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits: () => hits,
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

/** Characters as tokens: enough to exercise request building and response reading. */
const charTokenizer: Tokenizer = {
  vocabSize: 256, bosTokenId: 1, eosTokenId: 2,
  encode: (text) => [...text].map((c) => c.charCodeAt(0) % 256),
  decode: (ids) => String.fromCharCode(...ids),
};

function json(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

/** A correct echo answer: every prompt token at log-prob -0.5, the top alternative at -0.25. */
function echoAnswer(prompts: number[][]): unknown {
  return {
    choices: prompts.map((p, i) => ({
      index: i, text: '', finish_reason: 'length',
      logprobs: { tokens: p.map(String), token_logprobs: p.map((_, j) => (j === 0 ? null : -0.5)),
        top_logprobs: p.map((_, j) => (j === 0 ? null : { x: -0.25 })) },
    })),
  };
}

function model(urls: string[], opts: { retries?: number; timeoutMs?: number; startupMs?: number; log?: (l: string) => void } = {}): RemoteModel {
  return new RemoteModel({
    endpoints: new RemoteEndpoints(urls, { backoffMs: 5, maxBackoffMs: 20, retries: opts.retries ?? 4, timeoutMs: opts.timeoutMs,
      startupMs: opts.startupMs, log: opts.log ?? (() => undefined) }),
    model: 'm', tokenizer: charTokenizer, id: 'fake', maxLength: 64,
  });
}

const REQ = [{ context: 'ab', continuation: 'cd' }];

/**
 * A port that refuses connections now and that no other socket is handed meanwhile: below the range
 * the system picks ports from for `listen(0)` and outgoing connections, so only an explicit bind can
 * take it (a port from listen(0), closed and bound again later, could be given to another test's socket).
 */
async function refusingPort(): Promise<number> {
  let low = 32768;
  try {
    low = Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || low;
  } catch { /* not Linux: 32768 is below the BSDs' and macOS's 49152 too */ }
  for (;;) {
    const port = 10_000 + Math.floor(Math.random() * (Math.min(low, 32768) - 10_000));
    const server = net.createServer();
    const free = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (free) {
      await new Promise((r) => server.close(r));
      return port;
    }
  }
}

test('500 then success, and 429 with Retry-After, are retried', async () => {
  const s = await fakeServer((body, hit, res) => (hit === 1 ? json(res, 500, { error: { message: 'busy' } })
    : hit === 2 ? json(res, 429, { error: { message: 'slow down' } }, { 'retry-after': '0' })
    : json(res, 200, echoAnswer(body.prompt))));
  try {
    const [r] = await model([s.url]).score(REQ);
    assert.deepEqual(r, { logprob: -1, tokens: 2, isGreedy: false });
    assert.equal(s.hits(), 3);
  } finally { await s.close(); }
});

test('400 is not retried and says what the server said', async () => {
  const s = await fakeServer((_b, _h, res) => json(res, 400, { error: { message: 'This model\'s maximum context length is 64 tokens' } }));
  try {
    await assert.rejects(model([s.url]).score(REQ),
      /the server at http:\/\/127\.0\.0\.1:\d+ answered POST \/v1\/completions with HTTP 400: This model's maximum context length is 64 tokens/);
    assert.equal(s.hits(), 1);
    // Callers read the status and the server's text as data, not from the message.
    await assert.rejects(model([s.url]).score(REQ), (err: unknown) => err instanceof RemoteError && err.status === 400 &&
      err.serverMessage === 'This model\'s maximum context length is 64 tokens');
  } finally { await s.close(); }
});

test('garbage, a server without log-probs, and wrong lengths get clear messages', async () => {
  const cases: [Handler, RegExp][] = [
    [(_b, _h, res) => json(res, 200, '<html>hello</html>'), /with a body that is not JSON .*<html>hello<\/html>/],
    [(_b, _h, res) => json(res, 200, { result: 1 }), /without a "choices" list/],
    [(b, _h, res) => json(res, 200, { choices: b.prompt.map((_, i) => ({ index: i, text: 'x', logprobs: null })) }),
      /returned no prompt log-probs .*genstudy serve <model folder>/],
    [(b, _h, res) => json(res, 200, { choices: b.prompt.map((_, i) => ({ index: i, text: '', logprobs: { token_logprobs: [null, -1] } })) }),
      /token_logprobs has 2 entries for an echoed prompt of 4 tokens/],
    [(_b, _h, res) => json(res, 200, { choices: [] }), /answered 0 choices for 1 prompts/],
    [(b, _h, res) => json(res, 200, { choices: b.prompt.map((p, i) => ({ index: i, text: '', logprobs: { token_logprobs: p.map(() => 'abc') } })) }),
      /token_logprobs\[1\] is "abc", not a log-probability/],
  ];
  for (const [handler, message] of cases) {
    const s = await fakeServer(handler);
    try {
      await assert.rejects(model([s.url]).score(REQ), message);
    } finally { await s.close(); }
  }
});

test('a dead endpoint is passed over; with none alive the error names the endpoints and the cause', async () => {
  const deadUrl = `http://127.0.0.1:${await refusingPort()}`;
  const s = await fakeServer((body, _h, res) => json(res, 200, echoAnswer(body.prompt)));
  try {
    const m = model([deadUrl, s.url]);
    const reqs = Array.from({ length: 40 }, (_, i) => ({ context: `c${i}`, continuation: 'xy' }));
    const got = await m.score(reqs);
    assert.equal(got.length, 40);
    assert.ok(got.every((r) => r.logprob === -1));
    await assert.rejects(model([deadUrl], { retries: 2, startupMs: 0 }).score(REQ),
      /gave up on POST \/v1\/completions after 3 tries over http:\/\/127\.0\.0\.1:\d+; last: .*connection failed \(ECONNREFUSED\)/);
  } finally { await s.close(); }
});

test('a server that refuses connections is waited for on /health up to the start-up deadline, with progress; then its refusals count', async () => {
  // A port that refuses until the client says it is waiting for it, then listens, as vLLM does once
  // it has loaded a model: the wait is what starts the server, so no timer has to land first.
  const port = await refusingPort();
  const lines: string[] = [];
  let server: http.Server | undefined;
  const listen = () => {
    server = http.createServer((req, res) => {
      if (req.url === '/health') { res.end(); return; }
      let text = '';
      req.on('data', (c: Buffer) => { text += c.toString(); });
      req.on('end', () => json(res, 200, echoAnswer((JSON.parse(text) as { prompt: number[][] }).prompt)));
    });
    server.listen(port, '127.0.0.1');
  };
  const log = (l: string) => {
    lines.push(l);
    if (/refuses connections; waiting/.test(l) && !server) listen();
  };
  try {
    const got = await model([`http://127.0.0.1:${port}`], { retries: 0, startupMs: 60_000, log }).score(REQ);
    assert.equal(got[0].logprob, -1);
    assert.match(lines[0], /refuses connections; waiting up to 60 s for it to start \(GET \/health\)/);
    assert.match(lines.at(-1)!, /is up after \d+ s/);
  } finally {
    const s = server;
    if (s) await new Promise((r) => { s.closeAllConnections(); s.close(() => r(undefined)); });
  }
  // A server that never comes up: waited for until the deadline, then the usual tries.
  const neverUrl = `http://127.0.0.1:${await refusingPort()}`;
  await assert.rejects(model([neverUrl], { retries: 1, startupMs: 300 }).score(REQ), /after 2 tries .*ECONNREFUSED/);
});

test('requests spread over live endpoints; a server that never answers times out', async () => {
  const a = await fakeServer((body, _h, res) => setTimeout(() => json(res, 200, echoAnswer(body.prompt)), 5));
  const b = await fakeServer((body, _h, res) => setTimeout(() => json(res, 200, echoAnswer(body.prompt)), 5));
  const silent = await fakeServer(() => undefined);
  try {
    const reqs = Array.from({ length: 64 }, (_, i) => ({ context: `c${i}`, continuation: 'xy' }));
    await model([a.url, b.url]).score(reqs);
    assert.ok(a.hits() > 0 && b.hits() > 0, `hits ${a.hits()} / ${b.hits()}`);
    await assert.rejects(model([silent.url], { retries: 0, timeoutMs: 200 }).score(REQ), /no answer within 0\.2 s/);
  } finally { await Promise.all([a.close(), b.close(), silent.close()]); }
});

test('URLs: /v1 suffix accepted, nonsense refused', () => {
  assert.deepEqual(new RemoteEndpoints(['http://127.0.0.1:8000/v1/', 'http://h:1']).urls, ['http://127.0.0.1:8000', 'http://h:1']);
  assert.throws(() => new RemoteEndpoints(['localhost:8000']), /expected an http:\/\/ or https:\/\/ URL|not a URL/);
  assert.throws(() => new RemoteEndpoints([]), /no server URL/);
});

test('every value a server sends is checked before it can be cached: top log-probs by id, prompt_logprobs entries, echoed ' +
  'top log-probs', async () => {
  const firstToken = (top: Record<string, unknown>): Handler => (b, _h, res) => json(res, 200, {
    choices: b.prompt.map((_, i) => ({ index: i, text: 'x', logprobs: { tokens: ['token_id:5'], token_logprobs: [-0.1], top_logprobs: [top] } })),
  });
  const topK = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`token_id:${i}`, -1 - i]));
  const ftCases: [Handler, RegExp][] = [
    [firstToken({ 'token_id:5': 0.7 }), /top_logprobs\[0\]\["token_id:5"\] is 0\.7, not a log-probability/],
    [firstToken({ 'token_id:5': 'NaN' }), /top_logprobs\[0\]\["token_id:5"\] is "NaN", not a log-probability/],
    [firstToken({ 'token_id:5': null }), /top_logprobs\[0\]\["token_id:5"\] is null/],
    [firstToken({ 'token_id:x': -1 }), /has key "token_id:x", expected "token_id:N"/],
    [firstToken(topK(22)), /has 22 entries for logprobs 20/],
  ];
  for (const [handler, message] of ftCases) {
    const s = await fakeServer(handler);
    try {
      await assert.rejects(model([s.url]).firstTokenLogprobs(['ab'], ['c', 'd']), message);
    } finally { await s.close(); }
  }
  const promptCases: [Handler, RegExp][] = [
    [(b, _h, res) => json(res, 200, { choices: b.prompt.map((p, i) => ({ index: i, text: '',
      prompt_logprobs: p.map((t, j) => (j === 0 ? null : { [t]: { logprob: -0.5, rank: 2 }, 7: { logprob: 3, rank: 1 } })) })) }),
      /prompt_logprobs\[1\]\["7"\] is 3, not a log-probability/],
    [(b, _h, res) => json(res, 200, { choices: b.prompt.map((p, i) =>
      ({ index: i, text: '', prompt_logprobs: p.map((t, j) => (j === 0 ? null : { [t]: { logprob: -0.5, rank: 0 } })) })) }),
      /rank is 0, expected a whole number >= 1/],
    [(b, _h, res) => json(res, 200, { choices: b.prompt.map((p, i) => ({ index: i, text: '',
      logprobs: { token_logprobs: p.map((_, j) => (j === 0 ? null : -0.5)), top_logprobs: p.map((_, j) => (j === 0 ? null : { x: 0.25 })) } })) }),
      /top_logprobs\[1\]\["x"\] is 0\.25, not a log-probability/],
  ];
  for (const [handler, message] of promptCases) {
    const s = await fakeServer(handler);
    try {
      await assert.rejects(model([s.url]).score(REQ), message);
    } finally { await s.close(); }
  }
});
