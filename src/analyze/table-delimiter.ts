// A score table written with another separator (Excel in a locale with decimal commas writes ";",
// some exports "|" or tabs under a .csv name) parses as one column per row; the reader would then
// report a missing "run" column, or a ragged row, which says nothing about the cause. The header row
// is checked first and the error names the separator it holds. Such files are not read with that
// separator: a ";" file usually writes decimal commas too ("0,83"), which would have to be guessed at.
import { extname } from 'node:path';
import { UserError, where } from '../errors.ts';
import { isGzip, openStream } from '../data/readers/open.ts';

const EXPECTED: Record<string, string> = { '.csv': ',', '.tsv': '\t' };
const OTHERS = [',', ';', '\t', '|'];
/** Enough of a file for any real header row; a longer first line is left to the reader. */
const HEADER_LIMIT = 1 << 20;

const shown = (d: string) => (d === '\t' ? 'a tab' : `"${d}"`);

/** Rejects a .csv / .tsv whose header row is one field holding another separator; other files pass. */
export async function checkDelimiter(file: string): Promise<void> {
  const expected = EXPECTED[extname(isGzip(file) ? file.slice(0, -3) : file).toLowerCase()];
  if (expected === undefined) return;
  const header = await firstLine(file);
  if (header === undefined || fieldCount(header, expected, expected === ',') > 1) return;
  const seen = OTHERS.filter((d) => d !== expected && fieldCount(header, d, expected === ',') > 1);
  if (seen.length === 0) return;
  const kind = expected === ',' ? 'comma-separated .csv files' : 'tab-separated .tsv files';
  const fix = seen[0] === '\t' ? 'name it .tsv' : seen[0] === ',' ? 'name it .csv' : 'write it with commas (pandas: df.to_csv(path))';
  throw new UserError(`${where(file, 1)}: the header row is one field holding ${shown(seen[0])}: the file looks ${shown(seen[0])}-separated, ` +
    `and genstudy reads ${kind}; ${fix}`, { file, line: 1 });
}

/** The first non-empty line, without a BOM; undefined for an empty file or a first line past the limit. */
async function firstLine(file: string): Promise<string | undefined> {
  const stream = openStream(file).setEncoding('utf8');
  let text = '';
  try {
    for await (const chunk of stream) {
      text += chunk as string;
      const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
      const line = lines.slice(0, -1).find((l) => l.trim() !== '');
      if (line !== undefined) return line;
      if (text.length > HEADER_LIMIT) return undefined;
    }
  } catch {
    return undefined; // the reader names an unreadable file in its own words
  } finally {
    stream.destroy();
  }
  const rest = text.replace(/^\uFEFF/, '').trim();
  return rest === '' ? undefined : rest.split(/\r?\n/)[0];
}

/** Fields of one row split at `delimiter`, outside double quotes when the format quotes. */
function fieldCount(line: string, delimiter: string, quoted: boolean): number {
  let count = 1, inQuotes = false;
  for (const c of line) {
    if (quoted && c === '"') inQuotes = !inQuotes;
    else if (c === delimiter && !inQuotes) count++;
  }
  return count;
}
