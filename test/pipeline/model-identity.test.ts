// A study model named by path and by hub id whose folder is another model is warned about, naming
// both: the hub cache's snapshot folder (models--org--name) or config.json's _name_or_path.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { modelIdentityWarnings } from '../../src/pipeline/model-preparation.ts';
import type { StudyModel } from '../../src/config/schema.ts';

function folder(root: string, rel: string, config: object): string {
  const dir = path.join(root, rel);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config));
  return rel;
}

test('a snapshot of another repo, or a config naming another hub id, is warned about; matching ones and local names are not', (t) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'genstudy-model-identity-'));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  const models = [
    { id: 'a', hub: 'facebook/opt-350m', path: folder(root, 'hub/models--facebook--opt-125m/snapshots/abc', { model_type: 'opt' }) },
    { id: 'b', hub: 'facebook/opt-125m', path: folder(root, 'hub2/models--facebook--opt-125m/snapshots/abc', { model_type: 'opt' }) },
    { id: 'c', hub: 'EleutherAI/pythia-410m', path: folder(root, 'c', { _name_or_path: 'EleutherAI/pythia-160m' }) },
    { id: 'd', hub: 'EleutherAI/pythia-410m', path: folder(root, 'd', { _name_or_path: '/scratch/me/pythia-410m' }) },
    { id: 'e', hub: 'EleutherAI/Pythia-410m', path: folder(root, 'e', { _name_or_path: 'EleutherAI/pythia-410m' }) },
    { id: 'f', path: folder(root, 'f', { _name_or_path: 'x/y' }) },
  ] as StudyModel[];
  const warnings = modelIdentityWarnings(models, root);
  assert.equal(warnings.length, 2, warnings.join('\n'));
  assert.match(warnings[0], new RegExp(/^model "a": .*models--facebook--opt-125m\/snapshots\/abc is the hub snapshot of facebook\/opt-125m, /.source +
    /but the study names models\[\]\.hub facebook\/opt-350m$/.source));
  assert.match(warnings[1], new RegExp(/^model "c": .*c\/config\.json says it is EleutherAI\/pythia-160m \(_name_or_path\), /.source +
    /but the study names models\[\]\.hub EleutherAI\/pythia-410m$/.source));
});
