import { test } from 'node:test';
import assert from 'node:assert/strict';
import { main } from '../../src/cli/main.ts';

test('unknown command exits non-zero', async () => {
  const code = await main(['no-such-command']);
  assert.notEqual(code, 0);
});
