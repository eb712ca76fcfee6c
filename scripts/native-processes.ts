// Starts and ends N native-path processes (default 200), 4 at a time, and prints how they ended:
// the check that no process hangs at exit (onnxruntime's library unloaded by koffi's finaliser
// while its telemetry threads waited on the loader lock hung 1 of ~400) and that none leaves
// telemetry files. test/engine/native-telemetry.test.ts runs a few; this runs enough to see a
// rare hang. Usage: node --import tsx scripts/native-processes.ts [N] [concurrency]
import { startAndEndNativeProcesses } from '../test/support/native-processes.ts';

const count = Number(process.argv[2] ?? 200);
const concurrency = Number(process.argv[3] ?? 4);
const t0 = Date.now();
const r = await startAndEndNativeProcesses(count, {
  concurrency, hangAfterMs: 120_000,
  onEnded: (p) => {
    if ((p.clean + p.hung + p.onWasm + p.failures.length) % 20 === 0) {
      process.stderr.write(`${p.clean} clean, ${p.hung} hung, ${p.failures.length} failed of ${p.started} started\n`);
    }
  },
});
console.log(JSON.stringify({ ...r, seconds: Math.round((Date.now() - t0) / 1000) }, null, 2));
process.exitCode = r.hung === 0 && r.failures.length === 0 && r.telemetryFiles.length === 0 && r.onWasm === 0 ? 0 : 1;
