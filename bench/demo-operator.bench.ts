/**
 * The demo operator at scale: 1,000 WebApps created at once against a real control plane
 * (tools/testenv, no nodes: `replicas: 0`, so the figures are the operator's, not kwok's; the
 * controller-manager's client at QPS 500, so its Deployment controller keeps up), the operator
 * process run as deployed (the built `apps/demo-operator/dist/cli.js`) with QPS 50 and burst 100.
 * It measures:
 *
 * - the time from the first create until every WebApp is reconciled (its Deployment exists and
 *   its status says Available for generation 1), against the throttle's floor: the minimum time
 *   QPS 50 / burst 100 allows for the requests the operator sent meanwhile
 *   ((requests − burst) ÷ QPS), counted in kube-apiserver's audit log by its user agent;
 * - where that time went: the operator's requests per 10 s (the throttle allows 500), the
 *   Deployment controller's status writes and the WebApps done by then;
 * - the operator's requests and writes per WebApp, by kind, and its CPU time;
 * - its peak RSS (VmHWM of the process) and its RSS at the end;
 * - its requests per minute once idle (nothing changing: only Lease renewals should remain).
 *
 *   npx nx run-many -t build && npx tsx --conditions=@k/source bench/demo-operator.bench.ts
 *
 * BENCH_WEBAPPS changes the count (default 1000), BENCH_WORKERS the operator's
 * --max-concurrent-reconciles (default 4, its own default). Writes bench/results/demo-operator.md.
 * The machine is shared: the report gives the load average at the start and at the end.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readAuditLog, startControlPlane, type AuditRecord } from '@k/testenv';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'apps/demo-operator/dist/cli.js');
const COUNT = Number(process.env.BENCH_WEBAPPS ?? 1000);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 4);
const QPS = 50;
const BURST = 100;
const CONTROLLER_MANAGER_QPS = 500;
const IDLE_MS = 60_000;
const NAMESPACE = 'bench';
const IDENTITY = 'bench';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function kb(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith(`${field}:`));
  return Number(line?.split(/\s+/)[1] ?? NaN);
}

/** cpuSeconds is the CPU time `pid` used so far (user and system). */
function cpuSeconds(pid: number): number {
  const fields = (readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1] ?? '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function kinds(records: readonly AuditRecord[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const record of records) {
    const kind = `${record.verb} ${record.resource}${record.subresource ? `/${record.subresource}` : ''} ${record.code}`;
    counts[kind] = (counts[kind] ?? 0) + 1;
  }
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)));
}

if (!existsSync(CLI)) throw new Error(`${CLI} is missing: npx nx run-many -t build`);
const startLoad = loadavg();
// Loaded like the other benchmarks load it (the lint rule wants one way per file set).
const { inferClientset } = await import('@k/clientset');
// kube-controller-manager's client gets QPS 500: at its default 20 its Deployment controller
// (a ReplicaSet and two status writes per Deployment) is slower than the operator at 50, and
// would set the pace of "Available" instead of the operator.
const plane = await startControlPlane({
  nodes: 0,
  scheduler: false,
  extraControllerManagerFlags: [
    `--kube-api-qps=${CONTROLLER_MANAGER_QPS}`,
    '--kube-api-burst=1000',
  ],
});
const cs = await inferClientset({
  kubeconfig: plane.kubeconfigPath,
  context: 'admin',
  throttle: 'off',
});
let operator: ReturnType<typeof spawn> | undefined;
try {
  await cs.applyManifests(readFileSync(join(ROOT, 'apps/demo-operator/deploy/crd.yaml'), 'utf8'), {
    fieldManager: 'bench',
  });
  await cs.coreV1
    .namespaces()
    .create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
  operator = spawn(
    process.execPath,
    [
      CLI,
      `--kubeconfig=${plane.kubeconfigPath}`,
      '--context=admin',
      `--namespace=${NAMESPACE}`,
      `--operator-namespace=${NAMESPACE}`,
      `--identity=${IDENTITY}`,
      `--qps=${QPS}`,
      `--burst=${BURST}`,
      `--max-concurrent-reconciles=${WORKERS}`,
      '--health-probe-bind-address=127.0.0.1:0',
      '--metrics-bind-address=127.0.0.1:0',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  operator.stderr!.setEncoding('utf8').on('data', (chunk: string) => (log += chunk));
  while (!/leading; starting controllers/.test(log)) {
    if (operator.exitCode !== null) throw new Error(`the operator exited:\n${log}`);
    await sleep(100);
  }
  await sleep(1000); // the first Lease writes and the informers' lists happen before the clock starts
  const auditLog = plane.auditLogPath;
  const byOperator = () => readAuditLog(auditLog, { userAgent: `demo-operator/${IDENTITY}` });
  const startedWith = new Set((await byOperator()).map((record) => record.auditID));

  const webapps = cs.dynamic.resource(
    { group: 'apps.k.example', version: 'v1beta1', resource: 'webapps' },
    NAMESPACE,
  );
  const cpuAtStart = cpuSeconds(operator.pid!);
  const started = performance.now();
  const names = Array.from(
    { length: COUNT },
    (_, index) => `app-${String(index).padStart(4, '0')}`,
  );
  for (let next = 0; next < names.length;) {
    await Promise.all(
      names.slice(next, (next += 50)).map((name) =>
        webapps.create({
          apiVersion: 'apps.k.example/v1beta1',
          kind: 'WebApp',
          metadata: { name },
          spec: { container: { image: 'nginx:1.27' }, replicas: 0 },
        }),
      ),
    );
  }
  const created = performance.now();
  const startedAt = Date.now() - (performance.now() - started);
  const progress: { atMs: number; done: number }[] = [];
  let peakKb = 0;
  for (;;) {
    peakKb = Math.max(peakKb, kb(operator.pid!, 'VmHWM'));
    const [list, deployments] = await Promise.all([
      webapps.list(),
      cs.appsV1.deployments(NAMESPACE).list({ limit: 1 }),
    ]);
    const done = list.items.filter((item) => {
      const status = item.status as
        | { observedGeneration?: number; conditions?: { type: string; status: string }[] }
        | undefined;
      return (
        status?.observedGeneration === 1 &&
        status.conditions?.some((c) => c.type === 'Available' && c.status === 'True')
      );
    }).length;
    const deploymentCount =
      (deployments.metadata?.remainingItemCount ?? 0) + deployments.items.length;
    progress.push({ atMs: performance.now() - started, done });
    if (done === COUNT && deploymentCount === COUNT) break;
    await sleep(500);
  }
  const reconciledMs = performance.now() - started;
  const cpuWhileReconciling = cpuSeconds(operator.pid!) - cpuAtStart;
  const reconciledLoad = loadavg();
  await sleep(2000); // records reach the audit log a moment after the responses
  const during = (await byOperator()).filter((record) => !startedWith.has(record.auditID));
  const requests = during.length;
  const floorMs = (Math.max(0, requests - BURST) / QPS) * 1000;
  const writes = during.filter((record) => /^(create|update|patch|delete)$/.test(record.verb));
  // Where the time went: the operator's requests and the Deployment controller's status writes
  // (which the WebApps' status waits for) per 10 s, and the WebApps done by then.
  const deploymentStatusWrites = await readAuditLog(auditLog, {
    userAgent: /^kube-controller-manager/,
    resource: 'deployments',
    verb: 'update',
  });
  const windowMs = 10_000;
  const timeline = Array.from({ length: Math.ceil(reconciledMs / windowMs) }, (_, index) => {
    const [from, to] = [startedAt + index * windowMs, startedAt + (index + 1) * windowMs];
    const inWindow = (record: AuditRecord) => record.receivedAt >= from && record.receivedAt < to;
    const doneBy = progress.filter((sample) => sample.atMs < (index + 1) * windowMs).at(-1);
    return `| ${index * 10}–${(index + 1) * 10} s | ${during.filter(inWindow).length} | ${deploymentStatusWrites.filter((record) => inWindow(record) && record.subresource === 'status').length} | ${doneBy?.done ?? 0} |`;
  });

  const seenBeforeIdle = new Set((await byOperator()).map((record) => record.auditID));
  await sleep(IDLE_MS);
  const idle = (await byOperator()).filter((record) => !seenBeforeIdle.has(record.auditID));
  const endKb = kb(operator.pid!, 'VmRSS');
  peakKb = Math.max(peakKb, kb(operator.pid!, 'VmHWM'));

  const row = (label: string, value: string) => `| ${label} | ${value} |`;
  const perMinute = (idle.length / IDLE_MS) * 60_000;
  const markdown = [
    `# Benchmark: the demo operator with ${COUNT.toLocaleString('en')} WebApps`,
    '',
    'Generated by `npx tsx --conditions=@k/source bench/demo-operator.bench.ts` (built dist; see the file header).',
    '',
    `Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model.split(' ').slice(0, 2).join(' ')}, load average ${startLoad.map((value) => value.toFixed(2)).join(' ')} at the start and ${reconciledLoad.map((value) => value.toFixed(2)).join(' ')} once all were reconciled; a real kube-apiserver, etcd and kube-controller-manager (tools/testenv, no nodes: \`replicas: 0\`; the controller-manager's client at QPS ${CONTROLLER_MANAGER_QPS}); the operator as one process at QPS ${QPS}, burst ${BURST}, ${WORKERS} concurrent reconciles; one run.`,
    '',
    '| measure | value |',
    '| --- | ---: |',
    row(
      `time to create the ${COUNT} WebApps (the benchmark's client, unthrottled)`,
      `${((created - started) / 1000).toFixed(1)} s`,
    ),
    row(
      'time until all are reconciled and their Deployments exist',
      `${(reconciledMs / 1000).toFixed(1)} s`,
    ),
    row(
      `the throttle's floor for the requests it sent ((requests − ${BURST}) ÷ ${QPS})`,
      `${(floorMs / 1000).toFixed(1)} s`,
    ),
    row('time ÷ floor (target ≤ 1.2)', `${(reconciledMs / floorMs).toFixed(2)}`),
    row('requests sent meanwhile', `${requests} (${(requests / COUNT).toFixed(2)} per WebApp)`),
    row('writes meanwhile', `${writes.length} (${(writes.length / COUNT).toFixed(2)} per WebApp)`),
    row(
      'CPU time of the operator meanwhile',
      `${cpuWhileReconciling.toFixed(1)} s (${((cpuWhileReconciling / reconciledMs) * 100_000).toFixed(0)}% of one core)`,
    ),
    row('peak RSS of the operator (VmHWM)', `${(peakKb / 1024).toFixed(1)} MB`),
    row('RSS at the end', `${(endKb / 1024).toFixed(1)} MB`),
    row(
      `requests per minute when idle (${IDLE_MS / 1000} s)`,
      `${perMinute.toFixed(1)}: ${JSON.stringify(kinds(idle))}`,
    ),
    '',
    `Per 10 s from the first create: the operator's requests (at most ${QPS * 10} once the burst is spent), the Deployment controller's status writes, the WebApps done:`,
    '',
    '| window | operator requests | Deployment status writes | WebApps done |',
    '| --- | ---: | ---: | ---: |',
    ...timeline,
    '',
    'Requests while reconciling, by kind:',
    '',
    '```',
    JSON.stringify(kinds(during), null, 2),
    '```',
    '',
  ].join('\n');
  writeFileSync(join(ROOT, 'bench/results/demo-operator.md'), markdown);
  writeFileSync(join(ROOT, 'bench/results/demo-operator.log.tmp'), log);
  console.log(markdown);
} finally {
  operator?.kill('SIGTERM');
  if (operator && operator.exitCode === null)
    await new Promise((resolve) => operator!.once('exit', resolve));
  await cs.close();
  await plane.stop();
}
