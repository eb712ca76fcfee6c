// Starting runner.py on a prepared run: as one Python process, under `accelerate launch` (its
// --config_file carries multi-GPU, DeepSpeed ZeRO and FSDP settings straight through), under
// torchrun, or as a SLURM batch script (written beside the run, then given to sbatch). The launchers
// are run as Python modules of the chosen interpreter (python -m accelerate.commands.launch,
// python -m torch.distributed.run), so one --python names the whole environment.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { UserError } from '../../errors.ts';
import { HF_LAUNCH_DEFAULTS, LAUNCHERS } from '../option-table.ts';

export { LAUNCHERS };

export type Launcher = (typeof LAUNCHERS)[number];

/** The runner shipped with the package. */
export const RUNNER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'runner.py');

export interface LaunchOptions {
  launcher: Launcher;
  /** The Python with torch, transformers, peft and accelerate (default: $GENSTUDY_PYTHON, else python3). */
  python?: string;
  /** Processes (GPUs) on the node. */
  processes?: number;
  /** accelerate's --config_file (DeepSpeed, FSDP, mixed precision...). */
  accelerateConfig?: string;
  /** Extra arguments for the launcher, before the runner (e.g. ["--main_process_port", "29600"]). */
  launcherArgs?: string[];
  /** SLURM: extra "#SBATCH" directives, e.g. ["--partition=gpu", "--time=24:00:00"]. */
  sbatch?: string[];
  /** SLURM: write the script but do not submit it. */
  noSubmit?: boolean;
  /** SLURM: the sbatch command (default: sbatch). */
  sbatchCommand?: string;
}

/** The processes of a launch, the default resolved here for prepare, launch and the run's record alike. */
export function processesOf(o: { processes?: number }): number {
  return o.processes ?? HF_LAUNCH_DEFAULTS.processes;
}

export function defaultPython(): string {
  return process.env.GENSTUDY_PYTHON || 'python3';
}

/** The command line that trains the prepared run in the foreground (not for slurm). */
export function launchCommand(runFile: string, o: LaunchOptions): string[] {
  const python = o.python ?? defaultPython();
  const processes = processesOf(o);
  const extra = o.launcherArgs ?? [];
  switch (o.launcher) {
    case 'python':
      if (processes > 1) throw new UserError(`launcher "python" runs one process; use accelerate or torchrun for ${processes}`);
      return [python, RUNNER, runFile];
    case 'accelerate':
      return [python, '-m', 'accelerate.commands.launch', ...(o.accelerateConfig ? ['--config_file', path.resolve(o.accelerateConfig)] : []),
        '--num_processes', String(processes), ...extra, RUNNER, runFile];
    case 'torchrun':
      if (o.accelerateConfig) throw new UserError('--accelerate-config is for the accelerate launcher');
      return [python, '-m', 'torch.distributed.run', '--standalone', '--nproc_per_node', String(processes), ...extra, RUNNER, runFile];
    case 'slurm':
      throw new Error('internal: slurm runs through writeSlurmScript');
    default:
      throw new UserError(`launcher "${String(o.launcher)}": expected one of ${LAUNCHERS.join(', ')}`);
  }
}

function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`;
}

/** A batch script for one node with `processes` GPUs that runs the prepared run under accelerate. */
export function slurmScript(runFile: string, o: LaunchOptions & { jobName: string; logDir: string }): string {
  const processes = processesOf(o);
  const lines = [
    '#!/bin/bash',
    `#SBATCH --job-name=${o.jobName.replace(/[^A-Za-z0-9._-]/g, '_')}`,
    '#SBATCH --nodes=1',
    '#SBATCH --ntasks-per-node=1',
    `#SBATCH --gpus-per-node=${processes}`,
    `#SBATCH --output=${path.join(o.logDir, 'slurm-%j.out')}`,
    // A requeued or resubmitted job continues from the last checkpoint (runner.py resumes).
    '#SBATCH --open-mode=append',
    ...(o.sbatch ?? []).map((d) => `#SBATCH ${d.startsWith('--') ? d : `--${d}`}`),
    'set -euo pipefail',
    `cd ${shellQuote(process.cwd())}`,
    `exec ${launchCommand(runFile, { ...o, launcher: 'accelerate' }).map(shellQuote).join(' ')}`,
    '',
  ];
  return lines.join('\n');
}

export interface LaunchResult {
  /** The command run (or, for slurm, the script written). */
  command: string[];
  /** slurm: the script and the job id sbatch answered with (none when not submitted). */
  script?: string;
  jobId?: string;
}

/** Writes the batch script into the prepared folder and submits it. */
export function submitSlurm(runFile: string, o: LaunchOptions & { jobName: string }): LaunchResult {
  const dir = path.dirname(runFile);
  const script = path.join(dir, 'train.sbatch');
  fs.writeFileSync(script, slurmScript(runFile, { ...o, logDir: dir }), { mode: 0o755 });
  if (o.noSubmit) return { command: [script], script };
  const sbatch = o.sbatchCommand ?? 'sbatch';
  const r = spawnSync(sbatch, [script], { encoding: 'utf8' });
  if (r.error && (r.error as NodeJS.ErrnoException).code === 'ENOENT') {
    throw new UserError(
      `${sbatch}: not found (this machine is not a SLURM login node); the batch script is written: ${script}; submit it where sbatch runs`);
  }
  if (r.status !== 0) throw new UserError(`${sbatch} ${script} failed (exit ${r.status}): ${(r.stderr || r.stdout).trim()}`);
  const jobId = /Submitted batch job (\d+)/.exec(r.stdout)?.[1];
  return { command: [sbatch, script], script, jobId };
}

/** Runs the launcher in the foreground, its output passed through; rejects when it fails. */
export function runLaunch(runFile: string, o: LaunchOptions,
  io: { signal?: AbortSignal; onOutput?: (chunk: string) => void } = {}): Promise<LaunchResult> {
  const command = launchCommand(runFile, o);
  return new Promise((resolve, reject) => {
    const child = spawn(command[0], command.slice(1), {
      stdio: ['ignore', io.onOutput ? 'pipe' : 'inherit', io.onOutput ? 'pipe' : 'inherit'],
      signal: io.signal,
      // The runner is one process group with its workers, so a stop reaches all of them.
      env: { ...process.env, PYTHONUNBUFFERED: '1' },
    });
    child.stdout?.on('data', (d: Buffer) => io.onOutput!(d.toString()));
    child.stderr?.on('data', (d: Buffer) => io.onOutput!(d.toString()));
    child.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') reject(new UserError(`${command[0]}: not found; give --python the interpreter of an environment with ` +
        `torch, transformers, peft and accelerate (docs/scale.md)`));
      else reject(err);
    });
    child.on('close', (code, signal) => {
      if (code === 0) resolve({ command });
      else reject(new UserError(`the hf training launch failed (${signal ? `signal ${signal}` : `exit ${code}`}): ${command.join(' ')}`));
    });
  });
}
