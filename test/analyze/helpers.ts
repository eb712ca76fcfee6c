// Shared by the analyze tests: temp folders and writing score tables.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const repoRoot = resolve(import.meta.dirname, '../..');

export function tempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'genstudy-analyze-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export function writeCsv(file: string, rows: readonly object[]): void {
  const columns = Object.keys(rows[0]);
  const cell = (r: object, c: string) => String((r as Record<string, unknown>)[c]);
  writeFileSync(file, [columns.join(','), ...rows.map((r) => columns.map((c) => cell(r, c)).join(','))].join('\n') + '\n');
}

export function writeJsonl(file: string, rows: readonly object[]): void {
  writeFileSync(file, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
}

