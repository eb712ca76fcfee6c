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

/** A paragraph broken at spaces into lines of at most `width` columns (a word longer than a line is cut), each indented. */
export function wrapText(text: string, width: number, indent = ''): string[] {
  const lines: string[] = [];
  let line = '';
  const room = Math.max(1, width - indent.length);
  const words = text.split(/\s+/).filter(Boolean).flatMap((w) => w.match(new RegExp(`.{1,${room}}`, 'gu')) ?? []);
  for (const word of words) {
    if (line && indent.length + line.length + 1 + word.length > width) { lines.push(indent + line); line = word; }
    else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(indent + line);
  return lines;
}

/** `text` cut to `width` characters with an ellipsis in the middle, so both ends of a name stay readable. */
export function middleTruncate(text: string, width: number): string {
  if (text.length <= width) return text;
  const keep = width - 1;
  return `${text.slice(0, Math.ceil(keep / 2))}…${text.slice(text.length - Math.floor(keep / 2))}`;
}
