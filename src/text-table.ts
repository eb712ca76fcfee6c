// Plain-text tables for the terminal, one layout for every command: each column padded to its
// widest cell, two spaces between columns, chosen columns right-aligned, no trailing spaces. train,
// evaluate and cache print their rows with it, as do analyze's tables (analyze/format.ts,
// format-meta.ts) and the synthetic suite's designed-against-found check (synth/design-check.ts).

/** Rows (the header first, when there is one) as lines, each indented by `indent` spaces. */
export function alignColumns(rows: readonly (readonly string[])[], opts: { indent?: number; rightAligned?: readonly number[] } = {}): string[] {
  if (rows.length === 0) return [];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  const right = opts.rightAligned ?? [];
  const indent = ' '.repeat(opts.indent ?? 0);
  return rows.map((r) => indent + r.map((c, i) => (right.includes(i) ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ').trimEnd());
}

/** A header and its rows as one block of text ending in a newline. */
export function formatTextTable(header: readonly string[], rows: readonly (readonly string[])[], rightAligned: readonly number[] = []): string {
  return alignColumns([header, ...rows], { rightAligned }).join('\n') + '\n';
}
