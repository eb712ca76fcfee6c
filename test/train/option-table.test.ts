// The training options' one table (train/option-table.ts) reaches all three places that read it:
// every option is a flag of `genstudy train` with the table's default, a study-file method field
// (when the table says so) with the same default and bounds, and a default of the trainer's
// resolved options. Adding an option to the table is therefore checked here without a new test.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Command } from 'commander';
import { registerTrain } from '../../src/cli/train.ts';
import { LoraSchema, MethodSchema } from '../../src/config/schema.ts';
import { resolveOptions } from '../../src/train/options.ts';
import { HF_LAUNCH_OPTIONS, LORA_OPTIONS, TRAINING_OPTIONS, type TrainingOptionSpec } from '../../src/train/option-table.ts';
import { switchOf } from '../../src/option-table.ts';
import { taskByName } from '../../src/tasks/index.ts';
import { genstudy } from '../support/genstudy-in-process.ts';

const tables = { TRAINING_OPTIONS, LORA_OPTIONS, HF_LAUNCH_OPTIONS } as Record<string, Record<string, TrainingOptionSpec>>;
const every = Object.entries(tables).flatMap(([table, options]) => Object.entries(options).map(([name, spec]) => ({ table, name, spec })));
const studyName = (name: string, spec: TrainingOptionSpec) => (typeof spec.study === 'object' ? spec.study.name : name);

test('every training, LoRA and hf launch option is a flag of genstudy train --help, with the table\'s default', async () => {
  const help = await genstudy(['train', '--help']);
  assert.equal(help.code, 0, help.stderr);
  const program = new Command();
  registerTrain(program);
  const train = program.commands.find((c) => c.name() === 'train')!;
  for (const { name, spec } of every) {
    const flag = switchOf(name, spec);
    assert.ok(help.stdout.split('\n').some((line) => line.trimStart().startsWith(`${flag} `) || line.trim() === flag),
      `${name}: ${flag} not in genstudy train --help`);
    const option = train.options.find((o) => o.long === flag);
    assert.ok(option, `${name}: no ${flag} option`);
    if (spec.kind === 'boolean') {
      // --no-x: on by default (commander sets true); --x: off unless given.
      assert.equal(flag.startsWith('--no-'), spec.default, `${name}: ${flag} against default ${spec.default}`);
    } else {
      assert.equal(option.defaultValue, spec.default === undefined ? undefined : String(spec.default), `${name}: ${flag}'s default`);
      assert.equal(option.mandatory, spec.required === true, `${name}: ${flag} required`);
    }
  }
});

test('the study file\'s method and lora fields come from the table: names, defaults and bounds', () => {
  const method = MethodSchema.parse({ name: 'ft', kind: 'ft', lr: 1e-3 }) as Record<string, unknown>;
  const lora = LoraSchema.parse({}) as Record<string, unknown>;
  let inStudy = 0;
  for (const { table, name, spec } of every) {
    if (spec.study === undefined) continue;
    inStudy++;
    const key = studyName(name, spec);
    const schema = table === 'LORA_OPTIONS' ? LoraSchema : MethodSchema;
    assert.ok(key in schema.shape, `${name}: no study-file field ${key}`);
    const parsed = table === 'LORA_OPTIONS' ? lora : method;
    const expected = spec.study === 'optional' || key === 'lr' ? undefined : spec.default;
    if (key !== 'lr') assert.equal(parsed[key], expected, `${name}: the study file's default`);
    if (spec.kind === 'number' || spec.kind === 'integer') {
      const base = table === 'LORA_OPTIONS' ? {} : { name: 'ft', kind: 'ft', lr: 1e-3 };
      if (spec.min !== undefined) {
        const below = spec.minOpen ? spec.min : spec.min - 1;
        assert.equal(schema.safeParse({ ...base, [key]: below }).success, false, `${name}: ${key}: ${below} accepted`);
      }
      if (spec.max !== undefined)
        assert.equal(schema.safeParse({ ...base, [key]: spec.max + 1 }).success, false, `${name}: ${key}: ${spec.max + 1} accepted`);
      if (spec.kind === 'integer')
        assert.equal(schema.safeParse({ ...base, [key]: (spec.min ?? 0) + 1.5 }).success, false, `${name}: ${key}: a fraction accepted`);
    }
    if (spec.kind === 'choice') {
      const base = { name: 'ft', kind: 'ft', lr: 1e-3 };
      for (const c of spec.choices) assert.equal(schema.safeParse({ ...base, [key]: c }).success, true, `${name}: ${c} refused`);
      assert.equal(schema.safeParse({ ...base, [key]: 'no-such-choice' }).success, false, `${name}: an unknown choice accepted`);
    }
  }
  // 11: maxGradNorm's study-file field is the protocol table's (tasks/protocol.ts), declared once there
  assert.ok(inStudy >= 11, `only ${inStudy} options are study-file fields`);
});

test('the trainer\'s resolved options default to the table\'s values', () => {
  const r = resolveOptions({
    model: 'm', outDir: 'o', task: taskByName('synthetic'), train: [{ id: '0', fields: { premise: 'a', hypothesis: 'b' }, label: 'Yes' }],
    method: 'full', lr: 1e-3,
  }) as unknown as Record<string, unknown>;
  for (const [name, spec] of Object.entries(TRAINING_OPTIONS) as [string, TrainingOptionSpec][]) {
    if (spec.default === undefined) assert.equal(r[name], name === 'lr' ? 1e-3 : undefined, `${name} has no default`);
    else assert.equal(r[name], spec.default, `${name}: the trainer's default`);
  }
});
