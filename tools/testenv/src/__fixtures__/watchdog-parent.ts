// Test fixture: a parent that arms a watchdog for a run dir, starts two idle children whose command
// lines mention the run dir (only the first is reported to the watchdog), prints their pids, then
// either idles until killed (`hang`) or disarms the watchdog and exits (`disarm`).
import { spawn } from 'node:child_process';
import { Watchdog } from '../watchdog-client.js';

const [runDir, mode] = process.argv.slice(2) as [string, string];
const watchdog = await Watchdog.start(runDir);
const idle = () =>
  spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', `${runDir}/data`], { stdio: 'ignore' });
const reported = idle();
const unreported = idle();
watchdog.watch(reported.pid!);
process.stdout.write(`${JSON.stringify({ watchdog: watchdog.pid, children: [reported.pid, unreported.pid] })}\n`);
if (mode === 'disarm') {
  await watchdog.disarm();
  reported.unref();
  unreported.unref();
  process.exit(0);
}
setInterval(() => {}, 1000);
