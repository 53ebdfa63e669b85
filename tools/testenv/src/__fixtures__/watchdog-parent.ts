// Test fixture: a parent that arms a watchdog for a run dir and starts three idle children: one it
// reports to the watchdog, one it does not report whose command line names a path in the run dir,
// and one it does not report that merely works inside the run dir (like `go mod tidy`). It prints
// the pids, then idles until killed (`hang`) or disarms the watchdog and exits (`disarm`).
import { spawn } from 'node:child_process';
import { Watchdog } from '../watchdog-client.js';

const [runDir, mode] = process.argv.slice(2) as [string, string];
const watchdog = await Watchdog.start(runDir);
const idle = (args: string[], cwd?: string) =>
  spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', '--', ...args], { stdio: 'ignore', cwd });
const reported = idle([`${runDir}/data`]);
const unreportedByArgument = idle([`--data-dir=${runDir}/etcd`]);
const unreportedByDirectory = idle([], runDir);
watchdog.watch(reported.pid!);
const children = [reported, unreportedByArgument, unreportedByDirectory];
process.stdout.write(`${JSON.stringify({ watchdog: watchdog.pid, children: children.map((child) => child.pid) })}\n`);
if (mode === 'disarm') {
  await watchdog.disarm();
  for (const child of children) child.unref();
  process.exit(0);
}
setInterval(() => {}, 1000);
