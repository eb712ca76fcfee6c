// Named moments at which a process can be made to stop, so that a test can kill it exactly there
// (SIGKILL while a checkpoint or model folder is half-written) instead of hoping a timer lands in
// a window of a few milliseconds. Off unless GENSTUDY_PAUSE_AT names the point: then the process
// says so on stderr and stops itself (SIGSTOP), and the test kills it. Points:
//   init-model:weights-written        a new model's weights are written, its config not yet
//   checkpoint-N:weights-written      checkpoint N's model (or adapter) is written, the rest not yet
//   checkpoint-N:before-rename        checkpoint N is complete under its temporary name
//   NAME:old-aside                    a folder NAME being replaced is renamed aside, the new one not yet in
//   NAME:tables-written               a report folder NAME has its tables under its temporary name, not yet its page
//   NAME:files-written                a set of files led by NAME is written under temporary names, none renamed yet
import fs from 'node:fs';

export function pausePoint(name: string): void {
  if (process.env.GENSTUDY_PAUSE_AT !== name) return;
  fs.writeSync(2, `genstudy: paused at ${name} (GENSTUDY_PAUSE_AT)\n`);
  process.kill(process.pid, 'SIGSTOP');
}
