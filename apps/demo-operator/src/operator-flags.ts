import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { OperatorError } from './errors.js';
import type { BindAddress, OperatorSettings } from './operator.js';
import { isLogLevel, type LogLevel } from './text-logger.js';

/** OperatorFlags are the operator's command line, resolved: where to connect, and how to run. */
export interface OperatorFlags {
  /** kubeconfig is `--kubeconfig` (only this file); unset: `KUBECONFIG`, `~/.kube/config`, else in-cluster. */
  kubeconfig?: string;
  context?: string;
  qps: number;
  burst: number;
  settings: OperatorSettings;
  logLevel: LogLevel;
}

/** OPERATOR_USAGE is the `--help` text. */
export const OPERATOR_USAGE = `usage: demo-operator [flags]

Reconciles WebApps (apps.k.example, read as v1beta1) into Deployments and Services.

flags:
  --kubeconfig=PATH                  kubeconfig file (default: $KUBECONFIG, ~/.kube/config, else in-cluster)
  --context=NAME                     kubeconfig context (default: its current context)
  --qps=N                            requests per second to the API server (default 20)
  --burst=N                          requests allowed at once above the QPS (default 30)
  --namespace=NS                     watch only this namespace (default: every namespace)
  --operator-namespace=NS            namespace of the Lease and the registry ConfigMaps
                                     (default: $POD_NAMESPACE, the pod's own, else demo-operator-system)
  --leader-elect=true|false          compete for the Lease, reconcile only while leading (default true)
  --leader-elect-lease-duration=15s  --leader-elect-renew-deadline=10s  --leader-elect-retry-period=2s
  --identity=NAME                    this replica's name in the Lease (default: $POD_NAME or host name, plus a suffix)
  --max-concurrent-reconciles=N      WebApps reconciled at once (default 4)
  --health-probe-bind-address=HOST:PORT  where /healthz and /readyz listen (default :8081, every
                                     interface, as the kubelet probes the Pod's IP; port 0 picks a
                                     free one; off = no server)
  --metrics-bind-address=HOST:PORT   where /metrics listens (default 127.0.0.1:8080: loopback only;
                                     :8080 for a Prometheus that scrapes Pods; off = no server)
  --webhook-bind-address=HOST:PORT   where the admission and conversion webhooks listen (HTTPS; in a
                                     cluster :9443, behind deploy/webhook-service.yaml; default off:
                                     a process outside the cluster cannot be called by its API server)
  --webhook-cert-dir=DIR             the webhook server's tls.crt and tls.key, reloaded when they change
                                     (default /tmp/k8s-webhook-server/serving-certs)
  --log-level=debug|info|warn|error  (default info)
  --help
`;

/** DEFAULT_WEBHOOK_CERT_DIR is controller-runtime's: where deploy/deployment.yaml mounts the certificate's Secret. */
const DEFAULT_WEBHOOK_CERT_DIR = '/tmp/k8s-webhook-server/serving-certs';

const IN_CLUSTER_NAMESPACE_FILE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

const KNOWN = new Set([
  'kubeconfig',
  'context',
  'qps',
  'burst',
  'namespace',
  'operator-namespace',
  'leader-elect',
  'leader-elect-lease-duration',
  'leader-elect-renew-deadline',
  'leader-elect-retry-period',
  'identity',
  'max-concurrent-reconciles',
  'health-probe-bind-address',
  'metrics-bind-address',
  'webhook-bind-address',
  'webhook-cert-dir',
  'log-level',
  'help',
]);
const BOOLEAN = new Set(['leader-elect', 'help']);

function invalid(message: string): OperatorError {
  return new OperatorError('ERR_OPERATOR_INVALID_FLAG', message);
}

/** splitFlags reads `--name=value`, `--name value` and bare boolean `--name`; the last one wins. */
function splitFlags(argv: readonly string[]): Map<string, string> {
  const values = new Map<string, string>();
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index] as string;
    const match = /^--([a-z-]+)(?:=(.*))?$/s.exec(argument);
    if (!match) throw invalid(`unexpected argument ${JSON.stringify(argument)}`);
    const name = match[1] as string;
    if (!KNOWN.has(name)) throw invalid(`unknown flag --${name}`);
    let value = match[2];
    if (value === undefined) {
      if (BOOLEAN.has(name)) value = 'true';
      else {
        value = argv[index + 1];
        if (value === undefined) throw invalid(`flag --${name} needs a value`);
        index += 1;
      }
    }
    values.set(name, value);
  }
  return values;
}

function positiveNumber(
  name: string,
  text: string | undefined,
  fallback: number,
  integer: boolean,
): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw invalid(
      `--${name} needs a positive ${integer ? 'integer' : 'number'}, got ${JSON.stringify(text)}`,
    );
  }
  return value;
}

/** durationMs reads a Go duration of seconds or milliseconds (`15s`, `1.5s`, `500ms`). */
function durationMs(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const match = /^(\d+(?:\.\d+)?)(ms|s)$/.exec(text);
  if (!match)
    throw invalid(`--${name} needs a duration such as 15s or 500ms, got ${JSON.stringify(text)}`);
  return Number(match[1]) * (match[2] === 's' ? 1000 : 1);
}

function booleanFlag(name: string, text: string | undefined, fallback: boolean): boolean {
  if (text === undefined) return fallback;
  if (text === 'true') return true;
  if (text === 'false') return false;
  throw invalid(`--${name} needs true or false, got ${JSON.stringify(text)}`);
}

function bindAddress(
  name: string,
  text: string | undefined,
  fallback: string,
): BindAddress | false {
  const value = text ?? fallback;
  if (value === 'off') return false;
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:\s[\]]*)):(\d{1,5})$/.exec(value);
  const port = Number(match?.[3]);
  if (!match || port > 65_535) {
    throw invalid(`--${name} needs host:port, :port or off, got ${JSON.stringify(value)}`);
  }
  const host = match[1] ?? match[2];
  return host ? { host, port } : { port };
}

function podNamespace(env: NodeJS.ProcessEnv): string | undefined {
  if (env.POD_NAMESPACE) return env.POD_NAMESPACE;
  try {
    return readFileSync(IN_CLUSTER_NAMESPACE_FILE, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * parseOperatorFlags resolves the command line (`argv` without node and the script) into
 * {@link OperatorFlags}; `undefined` for `--help`. Throws `ERR_OPERATOR_INVALID_FLAG` naming the flag.
 */
export function parseOperatorFlags(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): OperatorFlags | undefined {
  const values = splitFlags(argv);
  if (booleanFlag('help', values.get('help'), false)) return undefined;
  const logLevel = values.get('log-level') ?? 'info';
  if (!isLogLevel(logLevel))
    throw invalid(`--log-level needs debug, info, warn or error, got ${JSON.stringify(logLevel)}`);
  const qps = positiveNumber('qps', values.get('qps'), 20, false);
  const burst = positiveNumber('burst', values.get('burst'), 30, true);
  const leaseDurationMs = durationMs(
    'leader-elect-lease-duration',
    values.get('leader-elect-lease-duration'),
  );
  const renewDeadlineMs = durationMs(
    'leader-elect-renew-deadline',
    values.get('leader-elect-renew-deadline'),
  );
  const retryPeriodMs = durationMs(
    'leader-elect-retry-period',
    values.get('leader-elect-retry-period'),
  );
  const suffix = randomBytes(3).toString('hex');
  const kubeconfig = values.get('kubeconfig');
  const context = values.get('context');
  return {
    ...(kubeconfig ? { kubeconfig } : {}),
    ...(context ? { context } : {}),
    qps,
    burst,
    settings: {
      watchNamespace: values.get('namespace') ?? '',
      operatorNamespace:
        values.get('operator-namespace') ?? podNamespace(env) ?? 'demo-operator-system',
      leaderElection: booleanFlag('leader-elect', values.get('leader-elect'), true),
      identity: values.get('identity') ?? `${env.POD_NAME ?? hostname()}-${suffix}`,
      maxConcurrentReconciles: positiveNumber(
        'max-concurrent-reconciles',
        values.get('max-concurrent-reconciles'),
        4,
        true,
      ),
      probes: bindAddress(
        'health-probe-bind-address',
        values.get('health-probe-bind-address'),
        ':8081',
      ),
      metricsServer: bindAddress(
        'metrics-bind-address',
        values.get('metrics-bind-address'),
        '127.0.0.1:8080',
      ),
      webhookServer: bindAddress('webhook-bind-address', values.get('webhook-bind-address'), 'off'),
      webhookCertDir: values.get('webhook-cert-dir') || DEFAULT_WEBHOOK_CERT_DIR,
      ...(leaseDurationMs !== undefined ? { leaseDurationMs } : {}),
      ...(renewDeadlineMs !== undefined ? { renewDeadlineMs } : {}),
      ...(retryPeriodMs !== undefined ? { retryPeriodMs } : {}),
    },
    logLevel,
  };
}
