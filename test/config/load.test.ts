import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseStudy } from '../../src/config/load.ts';
import { expandStudy } from '../../src/config/expand.ts';
import { INIT_FAMILIES } from '../../src/train/option-table.ts';

const VALID = `name: s
synthetic: { seed: 1 }
models:
  - id: tiny
    init: { family: gpt2 }
  - id: opt
    path: models/opt-125m
training:
  - id: synthetic
    data: synthetic
methods:
  - name: base
    kind: base
    shots: [0, 2]
  - name: ft
    kind: ft
    lr: 0.001
    steps: 10
seeds: [1, 2]
evaluation:
  control: in-domain
  testSets: [synthetic]
`;

test('a valid study gets its defaults and expands into models x training sets x methods x seeds', () => {
  const study = parseStudy(VALID, 'study.yaml');
  assert.equal(study.analysis.residualiser, 'auto');
  assert.equal(study.analysis.correction, 'holm');
  assert.deepEqual(study.checkpoints, { atStart: true, atEnd: true });
  assert.equal(study.methods[1].batchSize, 8);
  const runs = expandStudy(study).map((r) => r.id);
  assert.deepEqual(runs, [
    'tiny--synthetic--base', 'tiny--synthetic--base-k2', 'tiny--synthetic--ft--seed1', 'tiny--synthetic--ft--seed2',
    'opt--synthetic--base', 'opt--synthetic--base-k2', 'opt--synthetic--ft--seed1', 'opt--synthetic--ft--seed2',
  ]);
  assert.deepEqual(expandStudy(study).map((r) => r.shots), [0, 2, 0, 0, 0, 2, 0, 0]);
});

test('errors name the file, the line and the field', () => {
  const cases: [string, string, RegExp][] = [
    ['family', VALID.replace('family: gpt2', 'family: gpt3'),
      new RegExp(`^study\\.yaml:5: models\\.0\\.init\\.family: Invalid option: expected one of ${INIT_FAMILIES.map((f) => `"${f}"`).join('\\|')}`)],
    ['lr', VALID.replace('    lr: 0.001\n', ''), /^study\.yaml:15: methods\.1\.lr: a trained method needs lr/],
    ['unknown key', VALID.replace('    steps: 10', '    stepz: 10'), /^study\.yaml:18: methods\.1: Unrecognized key: "stepz"/],
    ['missing test sets', VALID.replace('  testSets: [synthetic]\n', ''), /^study\.yaml:21: evaluation\.testSets: missing \(expected array\)/],
    ['yaml syntax', VALID.replace('seeds: [1, 2]', 'seeds: [1, 2'), /^study\.yaml:\d+:\d+: /],
    ['duplicate key', VALID.replace('name: s\n', 'name: s\nname: t\n'), /^study\.yaml:2:1: Map keys must be unique/],
    ['path and init', VALID.replace('    path: models/opt-125m', '    path: x\n    init: { family: gpt2 }'),
      /models\.1: give exactly one of path or init/],
  ];
  for (const [what, text, expected] of cases) {
    assert.throws(() => parseStudy(text, 'study.yaml'), (err: Error) => {
      assert.match(err.message, expected, what);
      return true;
    }, what);
  }
});

test('the example study files (demo, study A, study B) are valid and expand', async () => {
  const { loadStudyFile } = await import('../../src/config/load.ts');
  const root = new URL('../../examples/', import.meta.url).pathname;
  const counts = Object.fromEntries(
    ['demo', 'study-a', 'study-a-snli', 'study-b'].map((n) => [n, expandStudy(loadStudyFile(`${root}${n}.yaml`)).length]));
  // study B: 5 tasks x 3 training sizes x (4 base shot counts + FT + FTICL at two k).
  // demo: 2 training variants x 3 seeds.
  assert.deepEqual(counts, { demo: 6, 'study-a': 3, 'study-a-snli': 3, 'study-b': 105 });
});

test('--set overrides fields of the study file without editing it; errors in an override name it', () => {
  const study = parseStudy(VALID, 'study.yaml',
    ['seeds=[7]', 'models.1.path=rel/opt', 'methods.1.lr=1e-4', 'analysis.bootstrap=200', 'models.1.hub=facebook/opt-125m']);
  assert.deepEqual(study.seeds, [7]);
  assert.equal(study.models[1].path, `${process.cwd()}/rel/opt`, 'a path given on the command line is relative to the current folder');
  assert.equal(study.models[1].hub, 'facebook/opt-125m');
  assert.equal(study.methods[1].lr, 1e-4);
  assert.equal(study.analysis.bootstrap, 200);
  assert.deepEqual(expandStudy(study).filter((r) => r.method.kind === 'ft').map((r) => r.seed), [7, 7]);
  assert.throws(() => parseStudy(VALID, 'study.yaml', ['seeds']), /--set seeds: expected FIELD=VALUE, e\.g\. models\.0\.path=/);
  assert.throws(() => parseStudy(VALID, 'study.yaml', ['seeds=[x]']), /^UserError: --set seeds=\[x\]: seeds\.0: /);
  assert.throws(() => parseStudy(VALID, 'study.yaml', ['models.5.path=x']),
    /--set models\.5\.path=x: "models" is a list of 2; use an index from 0 to 2/);
  assert.throws(() => parseStudy(VALID, 'study.yaml', ['nmae=x']), /--set nmae=x: .*[Uu]nrecognized key.*nmae/);
});

test('two models, training sets or methods sharing a name are a user error at the line of the second', () => {
  const twice = VALID.replace('  - id: opt\n', '  - id: tiny\n');
  assert.throws(() => parseStudy(twice, 'study.yaml'), (err: Error) => {
    assert.equal(err.name, 'UserError');
    assert.match(err.message, /^study\.yaml:6: models\.1\.id: "tiny" is also models\[0\]'s id; give each a distinct id$/);
    return true;
  });
  assert.throws(() => parseStudy(VALID.replace('  - name: ft\n', '  - name: base\n'), 'study.yaml'),
    /^UserError: study\.yaml:15: methods\.1\.name: "base" is also methods\[0\]'s name/);
  // Distinct names that make one run id ("a/b" becomes "a_b" in a run id): caught when the runs are made.
  const clash = parseStudy(
    VALID.replace('  - id: synthetic\n    data: synthetic\n', '  - id: a/b\n    data: synthetic\n  - id: a_b\n    data: synthetic\n'), 'study.yaml');
  assert.throws(() => expandStudy(clash), (err: Error) => err.name === 'UserError' && /two runs with the id tiny--a_b--base/.test(err.message));
});

test('a YAML alias bomb is a user error naming the file, not a crash', () => {
  const levels = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
  for (let i = 1; i < 7; i++) levels.push(`${'abcdefg'[i]}: &${'abcdefg'[i]} [${Array(9).fill(`*${'abcdefg'[i - 1]}`).join(',')}]`);
  assert.throws(() => parseStudy(levels.join('\n') + '\n', 'bomb.yaml'), (err: Error) => {
    assert.equal(err.name, 'UserError');
    assert.match(err.message, /^bomb\.yaml: Excessive alias count .*; write the repeated values out or use fewer aliases$/);
    return true;
  });
});

test('--set of an unknown field is blamed on the --set, not on line 1 of the study file', () => {
  assert.throws(() => parseStudy(VALID, 'study.yaml', ['nosuch.field=1']), (err: Error) => {
    assert.match(err.message, /^--set nosuch\.field=1: \(top level\): Unrecognized key: "nosuch"$/);
    return true;
  });
});
