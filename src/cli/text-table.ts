// Plain-text tables for the terminal: columns padded to their widest cell, numbers right-aligned.
// train and evaluate print their rows with it; data, cache and analyze's tables (analyze/format.ts)
// pad their own columns.

export function formatTextTable(header: readonly string[], rows: readonly (readonly string[])[], rightAligned: readonly number[] = []): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells.map((c, i) => (rightAligned.includes(i) ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ').trimEnd();
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}
