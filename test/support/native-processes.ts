// Starts and ends native-path processes (test/support/native-child.ts), a few at a time, each in
// its own HOME and temp folder, and reports how they ended and what telemetry files they left: the
// check that onnxruntime neither hangs a process at exit nor writes its uploader's files.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const repoRoot = path.resolve(import.meta.dirname, '../..');
const child = path.join(repoRoot, 'test/support/native-child.ts');

export interface NativeProcessesReport {
  started: number;
  /** Ended by themselves with status 0 on the native path. */
  clean: number;
  /** Still running after `hangAfterMs` (then killed). */
  hung: number;
  /** Other endings, one line each (status, signal, stderr tail). */
  failures: string[];
  /** How many ran on wasm (the native path off): the check does not apply to them. */
  onWasm: number;
  /** Why, as the first of them said. */
  wasmReason?: string;
  /** Telemetry files found in the processes' HOME and temp folders. */
  telemetryFiles: string[];
}

/** Paths onnxruntime's 1DS uploader writes (mat-debug-<pid>.log and .ses in the temp folder, a database under ~/.cache/Microsoft). */
export function telemetryFilesIn(home: string, tmp: string): string[] {
  const found = fs.readdirSync(tmp).filter((n) => /^mat-debug-\d+\.log$/.test(n) || n === '.ses').map((n) => path.join(tmp, n));
  if (fs.existsSync(path.join(home, '.cache', 'Microsoft'))) found.push(path.join(home, '.cache', 'Microsoft'));
  return found;
}

/**
 * The environment of a child: its own HOME and temp folder, two threads (so that each onnxruntime
 * pool has a thread of its own to end at exit), and no ORT_DISABLE_TELEMETRY (genstudy must set it itself).
 */
export function childEnv(home: string, tmp: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, TMPDIR: tmp, GENSTUDY_THREADS: '2' };
  delete env.ORT_DISABLE_TELEMETRY;
  return env;
}

export async function startAndEndNativeProcesses(
  count: number, o: { concurrency?: number; hangAfterMs?: number; lingerMs?: number; onEnded?: (r: NativeProcessesReport) => void } = {},
): Promise<NativeProcessesReport> {
  const report: NativeProcessesReport = { started: 0, clean: 0, hung: 0, failures: [], onWasm: 0, telemetryFiles: [] };
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'genstudy-native-processes-'));
  const home = path.join(root, 'home');
  const tmp = path.join(root, 'tmp');
  fs.mkdirSync(home);
  fs.mkdirSync(tmp);
  const one = () => new Promise<void>((resolve, reject) => {
    report.started++;
    const p = spawn(process.execPath, ['--import', 'tsx', child, String(o.lingerMs ?? 0)], {
      cwd: repoRoot, env: childEnv(home, tmp), stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let hung = false;
    p.stdout.on('data', (d) => { stdout += String(d); });
    p.stderr.on('data', (d) => { stderr += String(d); });
    const timer = setTimeout(() => { hung = true; p.kill('SIGKILL'); }, o.hangAfterMs ?? 120_000);
    p.on('error', reject);
    p.on('close', (status, signal) => {
      clearTimeout(timer);
      if (hung) report.hung++;
      else if (status === 0 && stdout.startsWith('native')) report.clean++;
      else if (status === 0 && stdout.startsWith('wasm')) {
        report.onWasm++;
        report.wasmReason ??= stdout.trim();
      }
      else report.failures.push(`status ${status}, signal ${signal}: ${stderr.slice(-300)}`);
      o.onEnded?.(report);
      resolve();
    });
  });
  let next = 0;
  const worker = async () => { while (next < count) { next++; await one(); } };
  try {
    await Promise.all(Array.from({ length: Math.min(o.concurrency ?? 4, count) }, worker));
    report.telemetryFiles = telemetryFilesIn(home, tmp);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
  return report;
}
