// genstudy serve's length limits on every path, in both profiles (src/serve/context-limit.ts), and
// a client that goes away mid-body (not a server error).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import path from 'node:path';
import { startServer, type RunningServer } from '../../src/serve/index.ts';
import { tinyRun } from '../evaluate/helpers.ts';

let own: RunningServer;
let vllm: RunningServer;
const logged: string[] = [];
/** Requests whose handling is over, by their x-test header, and who waits for which. */
const done = new Set<string>();
const waiting = new Map<string, () => void>();

/** Resolves once `own` has finished with the request sent with x-test: `name` (logged whatever it would). */
function handled(name: string): Promise<void> {
  return done.has(name) ? Promise.resolve() : new Promise((resolve) => waiting.set(name, resolve));
}

before(async () => {
  const dir = path.join(tinyRun([0], 41, 'limit-run'), 'step-0');
  own = await startServer({
    modelDir: dir, log: (l) => logged.push(l),
    onRequestDone: (req) => {
      const name = req.headers['x-test'];
      if (typeof name !== 'string') return;
      done.add(name);
      waiting.get(name)?.();
    },
  });
  vllm = await startServer({ modelDir: dir, profile: 'vllm', log: (l) => logged.push(l) });
});

after(async () => {
  await own?.close();
  await vllm?.close();
});

async function complete(server: RunningServer, body: unknown): Promise<{ status: number; message?: string; body: Record<string, unknown> }> {
  const res = await fetch(`${server.url}/v1/completions`,
    { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = await res.json() as Record<string, unknown> & { error?: { message: string } };
  return { status: res.status, message: json.error?.message, body: json };
}

const ids = (n: number): number[] => Array.from({ length: n }, (_, i) => 5 + (i % 20));

test('max_tokens beyond the model length is a 400 on the plain generation path too (it answered for an empty prompt before)', async () => {
  for (const server of [own, vllm]) {
    const r = await complete(server, { prompt: ids(20), max_tokens: 1_000_000_000, temperature: 0 });
    assert.equal(r.status, 400);
    assert.match(r.message!, /max_tokens=1000000000 ?cannot be greater than/);
  }
});

test('a prompt over the limit is a 400 on every path, generation included (a 60,001-token prompt was accepted there)', async () => {
  for (const body of [{ prompt: ids(60_001), max_tokens: 4, temperature: 0 },
    { prompt: ids(60_001), max_tokens: 1, echo: true, logprobs: 1, temperature: 0 }]) {
    const r = await complete(own, body);
    assert.equal(r.status, 400, JSON.stringify(r.body).slice(0, 200));
    assert.match(r.message!, /prompt 0 has 60001 tokens; this model reads at most 256/);
  }
  // genstudy's profile: echo scoring may be one token over (its last token is only predicted).
  assert.equal((await complete(own, { prompt: ids(257), max_tokens: 1, echo: true, logprobs: 1, temperature: 0 })).status, 200);
  // vLLM's: prompt <= max_model_len - max_tokens, with vLLM's text.
  const over = await complete(vllm, { prompt: ids(256), max_tokens: 1, echo: true, logprobs: 1, temperature: 0 });
  assert.equal(over.status, 400);
  assert.equal(over.message, "You passed 256 input tokens and requested 1 output tokens. However, the model's context length is only 256 tokens, " +
    "resulting in a maximum input length of 255 tokens. Please reduce the length of the input prompt.");
  const fits = await complete(vllm, { prompt: ids(255), max_tokens: 1, echo: true, logprobs: 1, temperature: 0 });
  assert.equal(fits.status, 200);
  // vLLM attaches prompt_logprobs to an echo with logprobs.
  const choice = (fits.body.choices as Record<string, unknown>[])[0];
  assert.equal((choice.prompt_logprobs as unknown[]).length, 255);
});

test('a client that disconnects mid-body is not logged as a server error', async () => {
  const before = logged.length;
  const over = handled('gone');
  const req = http.request(`${own.url}/v1/completions`,
    { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': '100000', 'x-test': 'gone' } });
  req.on('error', () => undefined);
  req.flushHeaders();
  // One connection delivers in order: the headers, part of the body, then the close, so the server is
  // mid-body when the client goes, however long any of it takes.
  req.write('{"prompt": [1, 2, 3', () => req.destroy());
  await over;
  // The server keeps answering, and logged nothing for the aborted request.
  assert.equal((await fetch(`${own.url}/health`)).status, 200);
  assert.deepEqual(logged.slice(before), []);
});
