// JSON Lines, read line by line so a large file is never held whole; each line is parsed by the one
// JSON-lines parser (src/json-text.ts). Blank lines are skipped.
import { createInterface } from 'node:readline';
import { UserError } from '../../errors.ts';
import { parseJsonLine, stripBom } from '../../json-text.ts';
import { fileError, openStream } from './open.ts';
import type { SourceRow } from './row.ts';

export async function* readJsonLines(file: string): AsyncGenerator<SourceRow> {
  const input = openStream(file);
  const lines = createInterface({ input, crlfDelay: Infinity });
  let lineNo = 0;
  let index = 0;
  try {
    for await (const raw of lines) {
      lineNo++;
      const text = lineNo === 1 ? stripBom(raw) : raw;
      if (text.trim() === '') continue;
      yield { index: index++, line: lineNo, values: parseJsonLine(text, file, lineNo) };
    }
  } catch (err) {
    throw err instanceof UserError ? err : fileError(file, err as NodeJS.ErrnoException);
  } finally {
    lines.close();
    input.destroy();
  }
}
