// Reading flag values: every command parses numbers and lists here, so an invalid value gets the
// same kind of message everywhere, and the message names the valid range.
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../errors.ts';

/** A whole number in [min, max]; `undefined` passes through (the flag was not given). */
export function wholeNumber(flag: string, text: string | undefined, range: { min?: number; max?: number } = {}): number | undefined {
  if (text === undefined) return undefined;
  const min = range.min ?? 1;
  const n = Number(text);
  const t = text.trim();
  if (!/^-?\d+$/.test(t) || !Number.isSafeInteger(n) || n < min || (range.max !== undefined && n > range.max)) {
    throw new UserError(`${flag} ${text}: expected a whole number ${rangeText(min, range.max)}`);
  }
  return n;
}

/**
 * A folder the user named, which must exist: a missing one is named rather than worked around (a hub download that then fails blames the
 * network).
 */
export function existingFolder(flag: string, text: string): string {
  const stat = fs.statSync(text, { throwIfNoEntry: false });
  if (!stat) throw new UserError(`${flag} ${text}: no such folder`);
  if (!stat.isDirectory()) throw new UserError(`${flag} ${text}: not a folder`);
  return text;
}

/** A number within bounds; `open` bounds exclude the end point. */
export function numberIn(
  flag: string, text: string | undefined, range: { min?: number; max?: number; minOpen?: boolean; maxOpen?: boolean } = {},
): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  const { min, max, minOpen = false, maxOpen = false } = range;
  const ok = text.trim() !== '' && Number.isFinite(n)
    && (min === undefined || (minOpen ? n > min : n >= min))
    && (max === undefined || (maxOpen ? n < max : n <= max));
  if (!ok) {
    let where = '';
    if (min !== undefined && max !== undefined) where = ` in ${minOpen ? '(' : '['}${min}, ${max}${maxOpen ? ')' : ']'}`;
    else if (min !== undefined) where = ` ${minOpen ? '>' : '>='} ${min}`;
    else if (max !== undefined) where = ` ${maxOpen ? '<' : '<='} ${max}`;
    throw new UserError(`${flag} ${text}: expected a number${where}`);
  }
  return n;
}

/**
 * A list flag's values. Lists are written `--flag a b c` (or the flag repeated); lists of numbers
 * may also be written `0,2,4`, which cannot be ambiguous. Test sets are not split on commas,
 * since `synthetic:in-domain,overlap-broken` names sets of one suite.
 */
export function listValues(values: readonly string[] | string | undefined): string[] | undefined {
  if (values === undefined) return undefined;
  return (typeof values === 'string' ? [values] : values).map((s) => s.trim()).filter((s) => s !== '');
}

/** A list of whole numbers >= min (spaces or commas between them). */
export function numberList(flag: string, values: readonly string[] | string | undefined, min = 0): number[] | undefined {
  const items = listValues(values)?.flatMap((v) => v.split(',')).map((s) => s.trim()).filter((s) => s !== '');
  if (items === undefined) return undefined;
  if (items.length === 0) throw new UserError(`${flag}: expected one or more whole numbers ${rangeText(min)}`);
  return items.map((s) => wholeNumber(flag, s, { min })!);
}

function rangeText(min: number, max?: number): string {
  return max === undefined ? `>= ${min}` : `from ${min} to ${max}`;
}

/** A file to write: its folder must exist and it must not be a folder itself (checked before any work is done). */
export function outputFile(flag: string, file: string | undefined): string | undefined {
  if (file === undefined) return undefined;
  const dir = path.dirname(path.resolve(file));
  if (!fs.existsSync(dir)) throw new UserError(`${flag} ${file}: the folder ${dir} does not exist; create it or write elsewhere`);
  if (!fs.statSync(dir).isDirectory()) throw new UserError(`${flag} ${file}: ${dir} is not a folder`);
  if (fs.existsSync(file) && fs.statSync(file).isDirectory()) {
    throw new UserError(`${flag} ${file}: is a folder; give a file name, e.g. ${path.join(file, 'analysis.txt')}`);
  }
  return file;
}
