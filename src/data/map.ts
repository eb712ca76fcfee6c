// Turns one source row into an Example: picks and renames fields, names and maps the label,
// and decides whether the row is dropped (and says why).
import { UserError } from '../errors.ts';
import type { Example } from '../types.ts';
import { rowWhere, type SourceRow } from './readers/index.ts';
import type { DataSetSpec } from './spec.ts';

export type Mapping = Pick<DataSetSpec, 'fields' | 'label' | 'labelNames' | 'labels' | 'dropLabels' | 'unknownLabels' | 'target' | 'id'>;

/** Counts dropped rows by reason, in the order reasons first appear. */
export class DropCounter {
  private readonly counts = new Map<string, number>();
  add(reason: string, count = 1): void {
    if (count > 0) this.counts.set(reason, (this.counts.get(reason) ?? 0) + count);
  }
  list(): { reason: string; count: number }[] {
    return [...this.counts].map(([reason, count]) => ({ reason, count }));
  }
  get total(): number {
    let t = 0;
    for (const c of this.counts.values()) t += c;
    return t;
  }
}

export class RowMapper {
  private readonly drop: Set<string>;
  private readonly reserved: Set<string>;

  constructor(
    private readonly file: string,
    private readonly mapping: Mapping,
    private readonly drops: DropCounter,
  ) {
    this.drop = new Set(mapping.dropLabels ?? []);
    this.reserved = new Set([mapping.label, mapping.target, mapping.id].filter((c): c is string => c !== undefined));
  }

  /** The Example for a row, or undefined when the row is dropped (counted in `drops`). */
  map(row: SourceRow): Example | undefined {
    const m = this.mapping;
    const id = m.id === undefined ? String(row.index) : this.text(row, m.id);
    const fields: Record<string, string> = {};
    if (m.fields) {
      for (const [name, column] of Object.entries(m.fields)) fields[name] = this.text(row, column);
    } else {
      for (const [column, value] of Object.entries(row.values)) {
        if (this.reserved.has(column) || !isScalar(value)) continue;
        fields[column] = String(value);
      }
    }
    const example: Example = { id, fields };
    if (m.target !== undefined) example.target = this.text(row, m.target);
    if (m.label !== undefined) {
      const label = this.label(row, m.label);
      if (label === undefined) return undefined;
      example.label = label;
    }
    return example;
  }

  private label(row: SourceRow, column: string): string | undefined {
    const m = this.mapping;
    const raw = this.text(row, column);
    const named = nameLabel(raw, m.labelNames);
    if (this.drop.has(named) || this.drop.has(raw)) {
      this.drops.add(`label "${named}" is in dropLabels`);
      return undefined;
    }
    if (!m.labels) return named;
    const mapped = m.labels[named] ?? (named !== raw ? m.labels[raw] : undefined);
    if (mapped !== undefined) return mapped;
    if (m.unknownLabels === 'drop') {
      this.drops.add(`label "${named}" is not in labels (unknownLabels: drop)`);
      return undefined;
    }
    const known = [...Object.keys(m.labels), ...(m.dropLabels ?? []).map((l) => `${l} (dropped)`)];
    const shown = named === raw ? `"${raw}"` : `"${named}" (code ${raw})`;
    throw new UserError(
      `${rowWhere(this.file, row, column)}: unknown label ${shown}; expected one of ${known.map((k) => `"${k}"`).join(', ')} ` +
        '(add it to "labels" or "dropLabels", or set unknownLabels: drop)',
    );
  }

  /** The column's value as text; a missing or non-text value is an error naming the row and column. */
  private text(row: SourceRow, column: string): string {
    const value = row.values[column];
    if (value === undefined || value === null) {
      const has = Object.keys(row.values);
      const hint = value === null ? 'is null' : `is missing (the row has ${has.length ? has.map((c) => `"${c}"`).join(', ') : 'no fields'})`;
      throw new UserError(`${rowWhere(this.file, row, column)}: missing field: "${column}" ${hint}; expected text`);
    }
    if (!isScalar(value)) {
      const kind = Array.isArray(value) ? 'an array'
        : value instanceof Uint8Array ? 'binary data'
        : typeof value === 'object' ? 'an object'
        : `a ${typeof value}`;
      throw new UserError(`${rowWhere(this.file, row, column)}: field "${column}" is ${kind}, expected text`);
    }
    return String(value);
  }
}

function isScalar(value: unknown): value is string | number | bigint | boolean {
  const t = typeof value;
  return t === 'string' || t === 'number' || t === 'bigint' || t === 'boolean';
}

/** An integer code named by labelNames (a Hugging Face ClassLabel); anything else as it is. */
function nameLabel(raw: string, names: string[] | undefined): string {
  if (!names || !/^\d+$/.test(raw)) return raw;
  return names[Number(raw)] ?? raw;
}
