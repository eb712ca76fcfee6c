// Checkpoint folders: checkpoint-N (N = optimiser steps done), each a Hugging Face model folder
// (full fine-tuning) or a PEFT adapter folder (LoRA, with merged/ holding the merged model when
// asked), plus what resuming needs beside it, as transformers' Trainer keeps it:
//   trainer_state.json    step, run fingerprint, log history
//   optimizer.safetensors AdamW's exp_avg / exp_avg_sq per parameter (memory layout), step in metadata
// A folder is built under a temporary name and renamed into place, so checkpoint-N exists only
// when complete; a killed run leaves at most a temporary .checkpoint-N.*.tmp folder, which is ignored
// (and an old checkpoint-N it was replacing, moved aside as .checkpoint-N.*.old.tmp, is put back).
import fs from 'node:fs';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { UserError } from '../errors.ts';
import { pausePoint } from '../pause-point.ts';
import { readJsonFile, readSafetensors, writeSafetensors } from '../engine/index.ts';
import type { AdamW } from './adamw.ts';
import { buildAtomically, isTemporaryName, restoreAsideFolders, writeFileAtomic } from '../atomic-write.ts';

export interface LogEntry { step: number; loss: number; learningRate: number; gradNorm: number; tokensPerSecond: number; epoch: number }

export interface TrainerState {
  global_step: number;
  total_steps: number;
  epoch: number;
  fingerprint: string;
  method: 'full' | 'lora';
  base_model: string;
  log_history: LogEntry[];
}

export const STATE_FILE = 'trainer_state.json';
export const OPTIMIZER_FILE = 'optimizer.safetensors';

export function checkpointDir(outDir: string, step: number): string {
  return path.join(outDir, `checkpoint-${step}`);
}

/** Builds a checkpoint in a temporary folder with `fill`, then renames it to checkpoint-N. */
export async function writeCheckpoint(outDir: string, step: number, fill: (dir: string) => Promise<void>): Promise<string> {
  const final = checkpointDir(outDir, step);
  await buildAtomically(final, async (tmp) => {
    fs.mkdirSync(tmp, { recursive: true });
    await fill(tmp);
    pausePoint(`checkpoint-${step}:before-rename`);
  });
  return final;
}

/** Removes half-built checkpoint folders left by a killed run (after putting back any it had moved aside). */
export function removeStaleTemporaries(outDir: string): void {
  if (!fs.existsSync(outDir)) return;
  restoreAsideFolders(outDir);
  for (const name of fs.readdirSync(outDir)) {
    if (name.startsWith('.checkpoint-') && isTemporaryName(name)) fs.rmSync(path.join(outDir, name), { recursive: true, force: true });
  }
}

/** Complete checkpoints in `outDir`, by step, ascending. */
export function listCheckpoints(outDir: string): { step: number; dir: string }[] {
  if (!fs.existsSync(outDir)) return [];
  return fs.readdirSync(outDir)
    .map((name) => /^checkpoint-(\d+)$/.exec(name))
    .filter((m): m is RegExpExecArray => m !== null && fs.existsSync(path.join(outDir, m[0], STATE_FILE)))
    .map((m) => ({ step: Number(m[1]), dir: path.join(outDir, m[0]) }))
    .sort((a, b) => a.step - b.step);
}

export function writeState(dir: string, state: TrainerState): void {
  writeFileAtomic(path.join(dir, STATE_FILE), JSON.stringify(state, null, 2) + '\n');
}

export function readState(dir: string): TrainerState {
  const file = path.join(dir, STATE_FILE);
  const s = readJsonFile(file) as unknown as TrainerState;
  if (typeof s.global_step !== 'number' || typeof s.fingerprint !== 'string') {
    throw new UserError(`${file}: not a genstudy trainer state (fields global_step, fingerprint)`);
  }
  return s;
}

export async function writeOptimizer(dir: string, opt: AdamW): Promise<void> {
  const tensors = new Map<string, { shape: number[]; data: Float32Array }>();
  for (const [name, m] of opt.m) {
    tensors.set(`${name}.exp_avg`, { shape: m.shape, data: ((await m.data()) as Float32Array).slice() });
    const v = opt.v.get(name)!;
    tensors.set(`${name}.exp_avg_sq`, { shape: v.shape, data: ((await v.data()) as Float32Array).slice() });
  }
  writeSafetensors(path.join(dir, OPTIMIZER_FILE), tensors, { format: 'genstudy-adamw', step: String(opt.t) });
}

export function readOptimizer(dir: string, opt: AdamW): void {
  const file = path.join(dir, OPTIMIZER_FILE);
  const { tensors, metadata } = readSafetensors(file);
  for (const [name, m] of opt.m) {
    for (const [suffix, target] of [['exp_avg', m], ['exp_avg_sq', opt.v.get(name)!]] as const) {
      const t = tensors.get(`${name}.${suffix}`);
      if (!t || t.shape.join() !== target.shape.join()) {
        throw new UserError(`${file}: missing or misshapen tensor "${name}.${suffix}" (expected shape ${JSON.stringify(target.shape)})`);
      }
      tf.tidy(() => target.assign(tf.tensor(t.data, t.shape, 'float32')));
    }
  }
  const step = Number(metadata.step);
  if (!Number.isInteger(step) || step < 0) {
    throw new UserError(`${file}: metadata "step" is ${JSON.stringify(metadata.step)}; expected a whole number`);
  }
  opt.t = step;
}
