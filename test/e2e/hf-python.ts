// The Python the hf backend's end-to-end tests train with: $GENSTUDY_HF_PYTHON when set, else a
// virtual environment under .cache/hf-venv (gitignored) that the first run creates from the
// configured pip index with src/train/hf/requirements.txt and later runs reuse. When neither works
// the tests skip, saying how to run them.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../train/helpers.ts';

const IMPORTS = 'import torch, transformers, peft, accelerate; print(torch.__version__, transformers.__version__, peft.__version__, ' +
  'accelerate.__version__)';
export const REQUIREMENTS = path.join(repoRoot, 'src/train/hf/requirements.txt');
export const VENV = path.join(repoRoot, '.cache/hf-venv');
const HOW = `run it where pip can install ${path.relative(repoRoot, REQUIREMENTS)} (it creates ${path.relative(repoRoot, VENV)}), ` +
  'or set GENSTUDY_HF_PYTHON to a Python that has torch, transformers, peft and accelerate';

function versions(python: string): string | undefined {
  const r = spawnSync(python, ['-c', IMPORTS], { encoding: 'utf8', timeout: 120_000 });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

let found: { python: string; versions: string } | { skip: string } | undefined;

/** The Python to use, or why the tests skip. Creating the environment takes minutes the first time. */
export function hfPython(): { python: string; versions: string } | { skip: string } {
  if (found) return found;
  const given = process.env.GENSTUDY_HF_PYTHON;
  if (given) {
    const v = versions(given);
    found = v ? { python: given, versions: v } : { skip: `GENSTUDY_HF_PYTHON=${given} cannot import torch, transformers, peft and accelerate` };
    return found;
  }
  const python = path.join(VENV, 'bin/python');
  let v = fs.existsSync(python) ? versions(python) : undefined;
  if (!v) {
    const t0 = Date.now();
    fs.rmSync(VENV, { recursive: true, force: true });
    fs.mkdirSync(path.dirname(VENV), { recursive: true });
    const mk = spawnSync('python3', ['-m', 'venv', VENV], { encoding: 'utf8' });
    // --retries 0: an unreachable index fails at once instead of backing off for minutes per package.
    const pip = mk.status === 0
      ? spawnSync(path.join(VENV, 'bin/pip'), ['install', '--retries', '0', '--timeout', '30', '-r', REQUIREMENTS],
        { encoding: 'utf8', timeout: 40 * 60_000 })
      : mk;
    if (pip.status !== 0) {
      found = {
        skip: `could not create the Python environment (${(pip.stderr || String(pip.error)).trim().split('\n').slice(-2).join(' ')}); ${HOW}` };
      return found;
    }
    v = versions(python);
    process.stderr.write(`hf tests: created ${VENV} in ${((Date.now() - t0) / 1000).toFixed(0)} s (${v})\n`);
  }
  found = v ? { python, versions: v } : { skip: `${python} cannot import torch, transformers, peft and accelerate; ${HOW}` };
  return found;
}
