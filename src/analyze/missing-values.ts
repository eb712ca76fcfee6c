// What the folder readers (lm-eval-results.ts, trainer-state.ts) read as missing or skip, counted
// across all the files of a reading so that each kind gets one note saying how many and where the
// first one is: a folder of 150 checkpoints with one NaN each gets one line, not 150.
import { where } from '../errors.ts';
import type { NonFiniteValue } from '../json-text.ts';

export class Tally {
  private count = 0;
  private first = '';

  add(place: string): void {
    if (this.count++ === 0) this.first = place;
  }

  /** Adds the tokens parsePythonJson read as null in `file`. */
  addNonFinite(file: string, values: readonly NonFiniteValue[]): void {
    for (const v of values) this.add(`${where(file, v.line)}, field "${v.field}"`);
  }

  /** Pushes "<count> <what> (first at <place>)" when there was any. */
  noteInto(notes: string[], what: string): void {
    if (this.count) notes.push(`${this.count} ${what} (first at ${this.first})`);
  }
}

/** The notes every reader gives in one wording: Python's NaN / Infinity tokens, and the scores they (or a null) leave out. */
export const NON_FINITE_NOTE = 'NaN / Infinity value(s), as Python\'s json writes them, read as missing';
export const MISSING_SCORE_NOTE = 'score(s) missing (NaN, Infinity or null), left out';

/** "a.json, b.json, ... (12 in all)": the files a note leaves out, the first ten by name. */
export function listed(items: readonly string[], separator = ', ', shown = 10): string {
  return `${items.slice(0, shown).join(separator)}${items.length > shown ? `${separator}... (${items.length} in all)` : ''}`;
}
