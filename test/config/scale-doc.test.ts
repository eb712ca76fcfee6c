// docs/scale.md's study-B GPU example must train what the presets (examples/study-b.yaml) train:
// the same batch, global batch and per-task FTICL k, spread evenly over its processes.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import YAML from 'yaml';
import { parseStudy } from '../../src/config/load.ts';
import { gradAccumOf } from '../../src/config/settings.ts';

const repo = path.resolve(import.meta.dirname, '../..');

test('docs/scale.md: the study-B GPU example has the presets\' batch and FTICL k', () => {
  const doc = fs.readFileSync(path.join(repo, 'docs/scale.md'), 'utf8');
  const block = /```yaml\n(# study-b-gpu\.yaml[^]*?)```/.exec(doc)?.[1];
  assert.ok(block, 'the study-b-gpu.yaml block');
  const example = YAML.parse(block) as { methods: Record<string, unknown>[]; hf: { processes: number } };
  const presets = parseStudy(fs.readFileSync(path.join(repo, 'examples/study-b.yaml'), 'utf8'), 'examples/study-b.yaml');
  for (const kind of ['ft', 'fticl']) {
    const mine = example.methods.find((m) => m.kind === kind)!;
    const preset = presets.methods.find((m) => m.kind === kind)!;
    assert.equal(mine.batchSize, preset.batchSize, kind);
    assert.equal((mine.globalBatch as number | undefined) ?? (mine.batchSize as number) * (mine.gradAccum as number),
      (preset.batchSize * gradAccumOf(preset)), kind);
    assert.equal(((mine.globalBatch as number) / (mine.batchSize as number)) % example.hf.processes, 0,
      `${kind}: accumulation spreads over the processes`);
    if (kind === 'fticl') assert.deepEqual(mine.demonstrations, preset.demonstrations);
  }
});
