// Child process for the resume test: trains a tiny model and, when asked, kills itself with SIGKILL
// right after a given step (no clean-up runs, as when the machine or an operator kills a job).
// Usage: node --import tsx kill-child.ts <model dir> <out dir> <kill after step | 0>
import { resumeRun } from './resume-run.ts';

const [model, outDir, killAt] = process.argv.slice(2);
await resumeRun(model, outDir, (e) => { if (e.step === Number(killAt)) process.kill(process.pid, 'SIGKILL'); });
