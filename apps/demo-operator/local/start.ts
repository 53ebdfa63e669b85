import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { inferConfig } from '@k/config';
import type { Clientset } from '@k/clientset';
import { CLIENTSET } from '@k/clientset/di';
import { isNotFound } from '@k/rest';
import { formatProgress, startControlPlane, type ControlPlane } from '@k/testenv';
import { container as rootContainer } from 'tsyringe';
import { createWebAppsClient, type WebApp } from '../src/generated/web-app-v1beta1.js';
import { parseOperatorFlags } from '../src/operator-flags.js';
import { registerOperator } from '../src/register.js';
import { TextLogger } from '../src/text-logger.js';
import { WEBAPP_OPERATOR } from '../src/tokens.js';
import { ClusterWatch } from './cluster-watch.js';

const APP_ROOT = path.resolve(import.meta.dirname, '..');
const SAMPLE = 'hello';
const OPERATOR_NAMESPACE = 'demo-operator-system';

const USAGE = `usage: npm start [-- --kubeconfig=PATH] [--context=NAME] [--namespace=NS]

Starts a local control plane (built from Go modules by tools/testenv on first use), installs the
WebApp CRD, runs demo-operator, applies the sample WebApp and shows what happens, until Ctrl-C.
With --kubeconfig (or KUBECONFIG set) it uses that cluster instead; the operator then watches only
the demo namespace, and the sample is deleted at the end.

  --kubeconfig=PATH  --context=NAME   the cluster to use (default: a local control plane)
  --namespace=NS                      where the sample goes (default demo)
`;

interface StartOptions {
  kubeconfig?: string;
  context?: string;
  namespace: string;
}

function parseStartArguments(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
): StartOptions | string {
  const options: StartOptions = { namespace: 'demo' };
  for (const argument of argv) {
    const match = /^--(kubeconfig|context|namespace)=(.+)$/.exec(argument);
    if (argument === '--help') return USAGE;
    if (!match) return `npm start: unexpected argument ${JSON.stringify(argument)}\n${USAGE}`;
    options[match[1] as 'kubeconfig' | 'context' | 'namespace'] = match[2] as string;
  }
  const fromEnvironment = env.KUBECONFIG?.split(path.delimiter).find((entry) => entry !== '');
  if (!options.kubeconfig && fromEnvironment) options.kubeconfig = fromEnvironment;
  return options;
}

/** stopSignal aborts on the first SIGINT or SIGTERM; a repeat within 2 s (npm forwards the terminal's) is the same stop, a later one kills. */
function stopSignal(say: (line: string) => void): { signal: AbortSignal; dispose(): void } {
  const stop = new AbortController();
  let firstAt = 0;
  const onSignal = (name: NodeJS.Signals): void => {
    if (!stop.signal.aborted) {
      firstAt = Date.now();
      say(`${name}: stopping everything (Ctrl-C again to kill at once)`);
      stop.abort();
    } else if (Date.now() - firstAt > 2000) {
      process.exit(130);
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: stop.signal,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

function whenAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

function isReady(webapp: WebApp | undefined): boolean {
  const available = webapp?.status?.conditions?.find((condition) => condition.type === 'Available');
  return (
    webapp !== undefined &&
    available?.status === 'True' &&
    webapp.status?.observedGeneration === webapp.metadata?.generation &&
    (webapp.status?.readyReplicas ?? 0) === (webapp.spec.replicas ?? 1)
  );
}

/** waitUntil resolves true once `check` holds for the cached WebApp `key`, false when `signal` aborts first. */
function waitUntil(
  watch: ClusterWatch,
  key: string,
  check: (webapp: WebApp | undefined) => boolean,
  signal: AbortSignal,
): Promise<boolean> {
  return new Promise((resolve) => {
    const finish = (held: boolean): void => {
      registration.remove();
      signal.removeEventListener('abort', aborted);
      resolve(held);
    };
    const test = (): void => {
      if (check(watch.webapps.lister.get(key))) finish(true);
    };
    const aborted = (): void => finish(false);
    const registration = watch.webapps.addEventHandler({
      onAdd: test,
      onUpdate: test,
      onDelete: test,
    });
    if (signal.aborted) finish(false);
    else {
      signal.addEventListener('abort', aborted, { once: true });
      test();
    }
  });
}

async function applyDemoObjects(
  cs: Clientset,
  namespace: string,
  say: (line: string) => void,
): Promise<void> {
  const fieldManager = 'demo-operator-npm-start';
  await cs.applyManifests(readFileSync(path.join(APP_ROOT, 'deploy/crd.yaml'), 'utf8'), {
    fieldManager,
    force: true,
  });
  say('installed the CustomResourceDefinition webapps.apps.k.example (deploy/crd.yaml)');
  for (const name of new Set([namespace, OPERATOR_NAMESPACE])) {
    await cs.coreV1
      .namespaces()
      .apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, { fieldManager });
  }
}

/**
 * main is `npm start` (see USAGE): resolves with the exit code, 0 after Ctrl-C stopped everything
 * it started, 1 when something failed (after stopping what it had started).
 */
export async function main(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const parsed = parseStartArguments(argv, env);
  if (typeof parsed === 'string') {
    (parsed === USAGE ? process.stdout : process.stderr).write(parsed);
    return parsed === USAGE ? 0 : 2;
  }
  const say = (line: string): void => void process.stdout.write(`${line}\n`);
  const stop = stopSignal(say);
  let plane: ControlPlane | undefined;
  let cs: Clientset | undefined;
  let watch: ClusterWatch | undefined;
  const watching = new AbortController();
  // The operator stops after the clean-up (on a real cluster it still runs the sample's finalizer).
  const operatorStop = new AbortController();
  let running: Promise<void> | undefined;
  let failed = false;
  try {
    let kubeconfig = parsed.kubeconfig;
    let context = parsed.context;
    if (!kubeconfig) {
      say(
        'starting a local control plane (tools/testenv: kube-apiserver, etcd, controller-manager, scheduler, 2 kwok nodes)',
      );
      say(
        'the first run builds them from Go modules into ~/.cache/k-testenv: 6–10 minutes on 2 cores; later runs take seconds',
      );
      plane = await startControlPlane({ onProgress: (event) => say(formatProgress(event)) });
      say(
        `control plane ready at ${plane.server} (Kubernetes ${plane.kubernetesVersion}, nodes ${plane.nodes.join(', ')}; run directory ${plane.runDir})`,
      );
      kubeconfig = plane.kubeconfigPath;
      context = 'admin';
    }
    if (stop.signal.aborted) return 0;
    const config = await inferConfig({
      explicitPath: kubeconfig,
      overrides: context ? { context } : {},
    });
    if (!plane)
      say(
        `using the cluster ${config.server} (context ${config.contextName} of ${kubeconfig}); the operator watches only namespace ${parsed.namespace}`,
      );

    const flags = parseOperatorFlags(
      [
        `--namespace=${parsed.namespace}`,
        `--operator-namespace=${OPERATOR_NAMESPACE}`,
        '--health-probe-bind-address=127.0.0.1:0',
        '--metrics-bind-address=127.0.0.1:0',
        '--qps=20',
        '--burst=30',
      ],
      {},
    )!;
    const container = rootContainer.createChildContainer();
    registerOperator(container, {
      config,
      flags,
      logger: new TextLogger((line) => process.stdout.write(`[operator] ${line}`), 'info'),
    });
    cs = container.resolve(CLIENTSET);
    await applyDemoObjects(cs, parsed.namespace, say);

    watch = new ClusterWatch(cs, parsed.namespace, (line) => say(`[cluster] ${line}`));
    await watch.start(watching.signal);
    const operator = container.resolve(WEBAPP_OPERATOR);
    running = operator.run(operatorStop.signal).catch((error: unknown) => {
      failed = true;
      say(`the operator failed: ${error instanceof Error ? error.message : String(error)}`);
    });

    const webapps = createWebAppsClient(cs.rest, parsed.namespace);
    await cs.applyManifests(
      readFileSync(path.join(APP_ROOT, 'examples/hello-webapp.yaml'), 'utf8'),
      {
        fieldManager: 'demo-operator-npm-start',
        namespace: parsed.namespace,
        force: true,
      },
    );
    say(
      `applied the sample WebApp ${parsed.namespace}/${SAMPLE} (examples/hello-webapp.yaml: nginx, 2 replicas)`,
    );
    await Promise.race([
      waitUntil(watch, `${parsed.namespace}/${SAMPLE}`, isReady, stop.signal),
      running,
    ]);
    if (!stop.signal.aborted && !failed) {
      const kubectl = `kubectl --kubeconfig ${kubeconfig}${context ? ` --context ${context}` : ''} -n ${parsed.namespace}`;
      say(
        `ready: WebApp ${parsed.namespace}/${SAMPLE} is Available, ${watch.webapps.lister.get(`${parsed.namespace}/${SAMPLE}`)?.status?.readyReplicas} replicas ready`,
      );
      const { probes, metrics } = operator.manager.addresses;
      say(
        `the operator serves ${probes?.url ?? '(no server)'}/healthz and /readyz, and ${metrics?.url ?? '(no server)'}/metrics`,
      );
      say('try, in another terminal:');
      say(`  ${kubectl} get webapps,deployments,services,pods`);
      say(`  ${kubectl} scale webapp ${SAMPLE} --replicas=4          # the Deployment follows`);
      say(`  ${kubectl} scale deployment ${SAMPLE} --replicas=1      # drift: put back at once`);
      say(`  ${kubectl} patch webapp ${SAMPLE} --type=merge -p '{"spec":{"paused":true}}'`);
      say(
        `  ${kubectl} delete webapp ${SAMPLE}                      # finalizer, then garbage collection`,
      );
      say('press Ctrl-C to stop everything');
    }
    await Promise.race([whenAborted(stop.signal), running]);
    if (!plane && !failed) {
      // On a real cluster, leave nothing behind: delete the sample while the operator still runs its finalizer.
      await webapps.delete(SAMPLE).catch((error: unknown) => {
        if (!isNotFound(error)) throw error;
      });
      const gone = await waitUntil(
        watch,
        `${parsed.namespace}/${SAMPLE}`,
        (webapp) => webapp === undefined,
        AbortSignal.timeout(20_000),
      );
      if (!gone) failed = true;
      say(
        gone
          ? `deleted the sample WebApp; the CRD and the namespaces ${parsed.namespace} and ${OPERATOR_NAMESPACE} stay`
          : `the sample WebApp is still there after 20 s: see kubectl get webapp ${SAMPLE} -n ${parsed.namespace}`,
      );
    }
    return failed ? 1 : 0;
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? ` [${String(error.code)}]` : '';
    process.stderr.write(
      `npm start: ${error instanceof Error ? error.message : String(error)}${code}\n`,
    );
    return 1;
  } finally {
    stop.dispose();
    operatorStop.abort();
    if (running) {
      await running;
      say('operator stopped');
    }
    watching.abort();
    await watch?.stop();
    await cs?.close();
    if (plane) {
      await plane.stop();
      say('control plane stopped; its run directory is removed');
    }
  }
}
