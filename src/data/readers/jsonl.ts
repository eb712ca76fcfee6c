// JSON Lines, read line by line so a large file is never held whole. Blank lines are skipped.
import { createInterface } from 'node:readline';
import { UserError, where } from '../../errors.ts';
import { fileError, openStream, stripBom } from './open.ts';
import { jsonErrorDetail } from './json-error.ts';
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
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (err) {
        const { detail, offset } = jsonErrorDetail(err, text);
        throw new UserError(`${where(file, lineNo, offset === undefined ? undefined : offset + 1)}: invalid JSON: ${detail}`);
      }
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
        throw new UserError(`${where(file, lineNo)}: line is ${kind}, expected a JSON object`);
      }
      yield { index: index++, line: lineNo, values: value as Record<string, unknown> };
    }
  } catch (err) {
    throw err instanceof UserError ? err : fileError(file, err as NodeJS.ErrnoException);
  } finally {
    lines.close();
    input.destroy();
  }
}
