// Child process of resume-no-engine.test.ts: runs a study in a fresh process (where nothing has
// started the engine) and prints what it did as one JSON line: the study's work counters and
// whether the engine started. Usage: node --import tsx resume-child.ts <study file>
import { parseStudy } from '../../src/config/load.ts';
import { engineStarted } from '../../src/engine/index.ts';
import { NO_PROGRESS } from '../../src/evaluate/index.ts';
import { runStudy } from '../../src/pipeline/run-study.ts';
import { silentProgress } from '../../src/train/index.ts';
import fs from 'node:fs';

const [file] = process.argv.slice(2);
const lines: string[] = [];
const result = await runStudy(parseStudy(fs.readFileSync(file, 'utf8'), file), file,
  { log: (l) => lines.push(l), trainProgress: silentProgress, evalProgress: NO_PROGRESS });
process.stdout.write(`${JSON.stringify({ work: result.work, engineStarted: engineStarted(), log: lines })}\n`);
