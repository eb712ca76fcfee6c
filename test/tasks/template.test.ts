import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseTemplate, render, renderTemplate } from '../../src/tasks/template.ts';
import { UserError } from '../../src/errors.ts';

test('renders slots exactly, keeping every space and newline of template and values', () => {
  assert.equal(render('{a}Question: {b} Yes or No?', { a: ' x \n', b: 'y  ' }), ' x \nQuestion: y   Yes or No?');
  assert.equal(render('### Input:\n{input}\n### Sentiment:', { input: '' }), '### Input:\n\n### Sentiment:');
});

test('values are inserted literally: braces inside a value are not slots', () => {
  assert.equal(render('<{v}>', { v: '{other} }} {{' }), '<{other} }} {{>');
});

test('{{ and }} are literal braces', () => {
  const t = parseTemplate('{{x}} {y} }}{{', 'braces');
  assert.deepEqual(t.fields, ['y']);
  assert.equal(renderTemplate(t, { y: 'Y' }), '{x} Y }{');
});

test('fields lists slot names once, in order', () => {
  assert.deepEqual(parseTemplate('{b}{a}{b}').fields, ['b', 'a']);
});

test('a missing field names the template, the example and the field', () => {
  const t = parseTemplate('{premise} / {hypothesis}', 'my-task');
  assert.throws(() => renderTemplate(t, { premise: 'p' }, 'ex-7'), (e: unknown) => {
    assert.ok(e instanceof UserError);
    assert.match(e.message, /template "my-task"/);
    assert.match(e.message, /example "ex-7"/);
    assert.match(e.message, /no field "hypothesis"/);
    assert.match(e.message, /it has: premise/);
    return true;
  });
});

test('inherited object properties are not fields', () => {
  assert.throws(() => render('{constructor}', {}), UserError);
});

test('bad braces are errors naming the template and offset', () => {
  assert.throws(() => parseTemplate('abc {x', 'T1'), /template "T1": unclosed "\{" at offset 4/);
  assert.throws(() => parseTemplate('abc } x', 'T2'), /template "T2": single "\}" at offset 4/);
  assert.throws(() => parseTemplate('{a b}', 'T3'), /template "T3": bad slot "\{a b\}"/);
  assert.throws(() => parseTemplate('{}', 'T4'), /bad slot/);
});
