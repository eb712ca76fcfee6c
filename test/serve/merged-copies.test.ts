// The --max-loras bound on merged copies (src/serve/merged-copies.ts), on stand-in models that
// record their disposal, so every interleaving is set by the test: a retired copy is freed when its
// last request settles (not later), counts until then, and loads past the bound wait in order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MergedCopies, type MergedCopy } from '../../src/serve/merged-copies.ts';

class Model {
  disposed = false;
  constructor(readonly name: string) {}
  dispose(): void {
    assert.ok(!this.disposed, `${this.name} disposed twice`);
    this.disposed = true;
  }
}

/** A request that stays in flight until `finish` is called. */
function request(copies: MergedCopies<Model>, copy: MergedCopy<Model>): { finish: () => void; done: Promise<string> } {
  let finish!: () => void;
  const held = new Promise<void>((r) => { finish = r; });
  return { finish, done: copies.use(copy, async (m) => { await held; return m.name; }) };
}

/** Lets pending promise callbacks run. */
const settle = (): Promise<void> => new Promise((r) => setImmediate(r));

test('a retired copy is freed at once when idle, else when its last request is answered, and counts until then', async () => {
  const copies = new MergedCopies<Model>(2);
  const a = await copies.create(() => new Model('a'));
  const b = await copies.create(() => new Model('b'));
  assert.equal(copies.counts().live, 2);
  copies.retire(a);
  assert.ok(a.model.disposed);
  assert.equal(copies.counts().live, 1);

  const r1 = request(copies, b);
  const r2 = request(copies, b);
  copies.retire(b);
  assert.ok(!b.model.disposed, 'requests still use it');
  assert.equal(copies.counts().live, 1);
  r1.finish();
  assert.equal(await r1.done, 'b');
  assert.ok(!b.model.disposed, 'one request still uses it');
  r2.finish();
  await r2.done;
  assert.ok(b.model.disposed);
  assert.deepEqual(copies.counts(), { live: 0, peak: 2, busy: 0, waiting: 0 });
  await assert.rejects(copies.use(b, async () => 0), /retired/);
});

test('a load past the bound waits for a retired copy to be freed, loads are served in order, and the bound is never passed', async () => {
  const copies = new MergedCopies<Model>(1);
  const a = await copies.create(() => new Model('a'));
  const r = request(copies, a);
  copies.retire(a);
  const order: string[] = [];
  const loads = ['b', 'c'].map((n) => copies.create(() => { order.push(n); return new Model(n); }));
  await settle();
  assert.deepEqual(order, [], 'no room while a answers its request');
  assert.deepEqual(copies.counts(), { live: 1, peak: 1, busy: 1, waiting: 2 });
  r.finish();
  await r.done;
  const b = await loads[0];
  assert.deepEqual(order, ['b']);
  assert.ok(a.model.disposed);
  copies.retire(b);
  const c = await loads[1];
  assert.deepEqual(order, ['b', 'c']);
  assert.deepEqual(copies.counts(), { live: 1, peak: 1, busy: 0, waiting: 0 });
  copies.close();
  assert.ok(c.model.disposed);
});

test('eviction makes room only where retired copies will not, and a failed build gives its room back', async () => {
  const held: MergedCopy<Model>[] = [];
  let evictions = 0;
  const copies = new MergedCopies<Model>(2, () => { evictions++; return held.shift(); });
  held.push(await copies.create(() => new Model('a')), await copies.create(() => new Model('b')));
  const [a, b] = held;
  const r = request(copies, a);
  // Two waiting loads, no retired copy: two evictions, a (busy: freed after its request) and b (idle: freed now).
  const loads = [copies.create(() => new Model('c')), copies.create(() => new Model('d'))];
  await settle();
  assert.equal(evictions, 2);
  assert.ok(b.model.disposed && !a.model.disposed);
  assert.equal(copies.counts().live, 2, 'a and c: the bound holds while a answers');
  r.finish();
  await r.done;
  const [c, d] = await Promise.all(loads);
  assert.ok(a.model.disposed);
  assert.equal(copies.counts().peak, 2);

  copies.retire(c);
  await assert.rejects(copies.create(() => { throw new Error('bad adapter'); }), /bad adapter/);
  assert.equal(copies.counts().live, 1);
  assert.equal((await copies.create(() => new Model('e'))).model.name, 'e');
  assert.equal(evictions, 2, 'no eviction while there was room');
  assert.ok(!d.model.disposed);
});
