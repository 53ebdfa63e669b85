import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { inferConfig } from '@k/config';
import { parseManifests, type Clientset, type UnstructuredObject } from '@k/clientset';
import { CLIENTSET } from '@k/clientset/di';
import { isNotFound } from '@k/rest';
import { formatProgress, startControlPlane, type ControlPlane } from '@k/testenv';
import { container as rootContainer } from 'tsyringe';
import { createWebAppsClient as createV1alpha1Client } from '../src/generated/web-app-v1alpha1.js';
import { createWebAppsClient, type WebApp } from '../src/generated/web-app-v1beta1.js';
import type { WebAppOperator } from '../src/operator.js';
import { WEBHOOK_CONFIGURATION_NAME } from '../src/webhooks/register-webhooks.js';
import { parseOperatorFlags } from '../src/operator-flags.js';
import { registerOperator } from '../src/register.js';
import { TextLogger } from '../src/text-logger.js';
import { WEBAPP_OPERATOR } from '../src/tokens.js';
import { ClusterWatch } from './cluster-watch.js';

const APP_ROOT = path.resolve(import.meta.dirname, '..');
const SAMPLE = 'hello';
/** LEGACY is the WebApp `npm start` writes as v1alpha1 and reads back as v1beta1 (the conversion webhook). */
const LEGACY = 'legacy';
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

/**
 * installWebhooks registers the operator's webhook server (HTTPS on 127.0.0.1, a self-signed
 * certificate) with the local API server: the validating and mutating configurations and the CRD's
 * conversion, by URL, trusting that certificate.
 */
async function installWebhooks(
  cs: Clientset,
  operator: WebAppOperator,
  running: Promise<void>,
  say: (line: string) => void,
): Promise<void> {
  const webhooks = operator.webhooks!;
  // An operator that fails before its server listens has said why (the server never will).
  const address = await Promise.race([operator.webhookAddress!, running.then(() => undefined)]);
  if (address === undefined) return;
  const { url } = address;
  await webhooks.install(cs, {
    name: WEBHOOK_CONFIGURATION_NAME,
    target: { url },
    caBundle: webhooks.certificateAuthority!.caBundle,
  });
  say(
    `installed the webhooks at ${url} (a self-signed certificate for 127.0.0.1): validating (a WebApp's name must be free), mutating (memory limited to its request), the conversion v1alpha1 ⇄ v1beta1`,
  );
}

/**
 * showWebhooks shows each webhook at work: a WebApp refused because another team's Service has
 * its name (the webhook's reason), and a WebApp written as v1alpha1 read back as v1beta1.
 */
async function showWebhooks(
  cs: Clientset,
  namespace: string,
  say: (line: string) => void,
): Promise<void> {
  const taken = 'taken';
  await cs.coreV1.services(namespace).apply(
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: taken },
      spec: { ports: [{ port: 80 }] },
    },
    { fieldManager: 'another-team', force: true },
  );
  const refusal = await createWebAppsClient(cs.rest, namespace)
    .create({
      apiVersion: 'apps.k.example/v1beta1',
      kind: 'WebApp',
      metadata: { name: taken },
      spec: { container: { image: 'nginx:1.27' } },
    })
    .then(
      () => 'created (the validating webhook did not refuse it)',
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    );
  say(`denied: WebApp ${namespace}/${taken} (Service ${taken} is another team's): ${refusal}`);

  const written = await createV1alpha1Client(cs.rest, namespace).create({
    apiVersion: 'apps.k.example/v1alpha1',
    kind: 'WebApp',
    metadata: { name: LEGACY },
    spec: { image: 'nginx:1.27', replicas: 1, resources: { requests: { memory: '32Mi' } } },
  });
  const read = await createWebAppsClient(cs.rest, namespace).get(LEGACY);
  say(
    `converted: WebApp ${namespace}/${LEGACY} written as ${written.apiVersion} (spec.image ${written.spec.image}), read as ${read.apiVersion}: spec ${JSON.stringify(read.spec)}`,
  );
}

/**
 * withoutConversion is the CRD manifest `yaml` without its `spec.conversion` (the in-cluster
 * Service): the operator's webhooks install theirs by URL, and a server-side apply cannot replace
 * a Service another field manager applied (the API server would get both, and refuse the CRD).
 */
async function withoutConversion(yaml: string): Promise<string> {
  const [crd] = (await parseManifests(yaml)) as (UnstructuredObject & {
    spec: { conversion?: unknown };
  })[];
  if (crd) delete crd.spec.conversion;
  return JSON.stringify(crd);
}

async function applyDemoObjects(
  cs: Clientset,
  namespace: string,
  withWebhooks: boolean,
  say: (line: string) => void,
): Promise<void> {
  const fieldManager = 'demo-operator-npm-start';
  const crd = readFileSync(path.join(APP_ROOT, 'deploy/crd.yaml'), 'utf8');
  await cs.applyManifests(withWebhooks ? await withoutConversion(crd) : crd, {
    fieldManager,
    force: true,
  });
  say(
    `installed the CustomResourceDefinition webapps.apps.k.example (deploy/crd.yaml${withWebhooks ? ', its conversion webhook by URL below' : ''})`,
  );
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
        // On the local control plane only: a remote cluster cannot call a server on this machine.
        ...(plane ? ['--webhook-bind-address=127.0.0.1:0'] : []),
        `--namespace=${parsed.namespace}`,
        `--operator-namespace=${OPERATOR_NAMESPACE}`,
        '--health-probe-bind-address=127.0.0.1:0',
        '--metrics-bind-address=127.0.0.1:0',
        '--qps=20',
        '--burst=30',
      ],
      {},
    )!;
    flags.settings.webhookCertificate = { selfSigned: { hosts: ['127.0.0.1'] } };
    const container = rootContainer.createChildContainer();
    registerOperator(container, {
      config,
      flags,
      logger: new TextLogger((line) => process.stdout.write(`[operator] ${line}`), 'info'),
    });
    cs = container.resolve(CLIENTSET);
    await applyDemoObjects(cs, parsed.namespace, plane !== undefined, say);

    watch = new ClusterWatch(cs, parsed.namespace, (line) => say(`[cluster] ${line}`));
    await watch.start(watching.signal);
    const operator = container.resolve(WEBAPP_OPERATOR);
    running = operator.run(operatorStop.signal).catch((error: unknown) => {
      failed = true;
      say(`the operator failed: ${error instanceof Error ? error.message : String(error)}`);
    });

    if (operator.webhooks) await installWebhooks(cs, operator, running, say);
    else
      say(
        'webhooks are not installed: a remote cluster cannot call a server on this machine (in a cluster they run in the operator’s Pods: deploy/)',
      );

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
    if (operator.webhooks && !stop.signal.aborted && !failed)
      await showWebhooks(cs, parsed.namespace, say);
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
      if (operator.webhooks)
        say(
          `  ${kubectl} get webapps.v1alpha1.apps.k.example ${LEGACY} -o yaml   # converted by the webhook`,
        );
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
