// A GPT-2 LoRA adapter written by the built-in trainer loads in PEFT as it is: GPT-2's projections
// are Conv1D modules (the family's `conv1d` ParamSpecs), which PEFT adapts with fan_in_fan_out, and
// PEFT's adapted model gives the logits the built-in engine gives with the adapter attached.
// Needs the Python environment of the hf tests (test/e2e/hf-python.ts): `npm run test:e2e`.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { loadModel, LoraAdapters } from '../../src/engine/index.ts';
import { train } from '../../src/train/index.ts';
import { maxAbsDiff, smallSuite, tempDir, tinyModelDir } from '../train/helpers.ts';
import { hfPython } from './hf-python.ts';

const env = hfPython();
const skip = 'skip' in env ? env.skip : false;
const python = 'python' in env ? env.python : '';

// PEFT's own loading (peft/peft_model.py PeftModel.from_pretrained) and forward pass.
const PEFT_LOGITS = `
import json, sys, torch
from transformers import AutoModelForCausalLM
from peft import PeftModel
model = PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(sys.argv[1], torch_dtype=torch.float32), sys.argv[2])
with torch.no_grad():
    logits = model(torch.tensor(json.loads(sys.argv[3]))).logits
print(json.dumps({"fan_in_fan_out": model.peft_config["default"].fan_in_fan_out, "logits": logits.reshape(logits.shape[0], -1).tolist()}))
`;

test('a GPT-2 LoRA adapter (Conv1D layers) loads in PEFT with fan_in_fan_out and gives the built-in engine\'s logits', { skip }, async () => {
  const { suite } = await smallSuite();
  const model = await tinyModelDir('gpt2', { hidden: 32, layers: 2, seed: 3 });
  const out = tempDir();
  await train({
    model, outDir: out, task: suite.task, train: suite.train, method: 'lora', lr: 5e-2, batchSize: 8, maxSteps: 4,
    lora: { r: 4, alpha: 8, dropout: 0.1, targetModules: ['c_attn', 'c_proj', 'c_fc'] }, checkpoints: { every: 4 },
  });
  const adapter = path.join(out, 'checkpoint-4');
  assert.equal(JSON.parse(fs.readFileSync(path.join(adapter, 'adapter_config.json'), 'utf8')).fan_in_fan_out, true);

  const rows = [[1, 5, 9, 7, 3, 11], [1, 8, 5, 2, 4, 6]];
  const base = await loadModel(model);
  const plain = await base.logits(rows);
  const adapters = LoraAdapters.load(base, adapter);
  adapters.attach();
  const ours = await base.logits(rows);
  adapters.dispose();
  base.dispose();

  const r = spawnSync(python, ['-c', PEFT_LOGITS, model, adapter, JSON.stringify(rows)], { encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.equal(r.status, 0, r.stderr);
  const peft = JSON.parse(r.stdout) as { fan_in_fan_out: boolean; logits: number[][] };
  assert.equal(peft.fan_in_fan_out, true);
  for (let i = 0; i < rows.length; i++) {
    assert.ok(maxAbsDiff(ours[i], plain[i]) > 1e-2, `row ${i}: the trained adapter changes the logits`);
    const d = maxAbsDiff(ours[i], peft.logits[i]);
    assert.ok(d < 1e-5, `row ${i}: PEFT's logits differ from the built-in engine's by ${d}`);
  }
});
