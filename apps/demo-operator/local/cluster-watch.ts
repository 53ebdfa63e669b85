import type { Clientset, KubernetesObject } from '@k/clientset';
import type { Deployment } from '@k/clientset/apps/v1';
import type { Pod, Service } from '@k/clientset/core/v1';
import { InformerFactory, finalStateOf, type Informer } from '@k/runtime/informer';
import { createWebAppsClient, type WebApp } from '../src/generated/web-app-v1beta1.js';

function conditionText(webapp: WebApp, type: string): string {
  const condition = webapp.status?.conditions?.find((candidate) => candidate.type === type);
  if (!condition) return `${type}=?`;
  return type === 'Progressing'
    ? `${type}=${condition.status} (${condition.reason})`
    : `${type}=${condition.status}`;
}

function webAppLine(webapp: WebApp): string {
  const desired = webapp.spec.replicas ?? 1;
  const ready = webapp.status?.readyReplicas ?? 0;
  const paused = webapp.spec.paused ? ', paused' : '';
  return `${ready}/${desired} ready, ${conditionText(webapp, 'Available')}, ${conditionText(webapp, 'Progressing')}, ${conditionText(webapp, 'Degraded')}${paused} (image ${webapp.spec.container.image})`;
}

function deploymentLine(deployment: Deployment): string {
  const status = deployment.status ?? {};
  const image = deployment.spec.template.spec?.containers[0]?.image ?? '?';
  return `${deployment.spec.replicas ?? 1} wanted, ${status.updatedReplicas ?? 0} updated, ${status.readyReplicas ?? 0} ready, ${status.availableReplicas ?? 0} available (image ${image})`;
}

function serviceLine(service: Service): string {
  const ports = (service.spec?.ports ?? []).map(
    (port) => `${port.port} → ${String(port.targetPort)}`,
  );
  return `ClusterIP ${service.spec?.clusterIP ?? 'pending'}, port ${ports.join(', ')}`;
}

function podLine(pod: Pod): string {
  const ready = pod.status?.conditions?.some(
    (condition) => condition.type === 'Ready' && condition.status === 'True',
  );
  const node = pod.spec?.nodeName ? ` on ${pod.spec.nodeName}` : ', not scheduled yet';
  return `${pod.status?.phase ?? 'Pending'}${ready ? ', ready' : ''}${node}`;
}

/**
 * ClusterWatch prints, as they happen, the changes of what the demo is about in one namespace:
 * WebApps (their status), the Deployments and Services the operator makes and the Pods kwok's
 * nodes run. One line per change that a person would notice (the same summary twice prints once).
 */
export class ClusterWatch {
  readonly #factory = new InformerFactory();
  readonly #last = new Map<string, string>();
  readonly #print: (line: string) => void;
  readonly webapps: Informer<WebApp>;

  constructor(clientset: Clientset, namespace: string, print: (line: string) => void) {
    this.#print = print;
    this.webapps = this.#follow(
      this.#factory.informerFor(createWebAppsClient(clientset.rest, namespace)),
      'WebApp',
      webAppLine,
    );
    this.#follow(
      this.#factory.informerFor(clientset.appsV1.deployments(namespace)),
      'Deployment',
      deploymentLine,
    );
    this.#follow(
      this.#factory.informerFor(clientset.coreV1.services(namespace)),
      'Service',
      serviceLine,
    );
    this.#follow(this.#factory.informerFor(clientset.coreV1.pods(namespace)), 'Pod', podLine);
  }

  #follow<T extends KubernetesObject>(
    informer: Informer<T>,
    kind: string,
    describe: (object: T) => string,
  ): Informer<T> {
    const name = (object: KubernetesObject) =>
      `${kind} ${object.metadata?.namespace}/${object.metadata?.name}`;
    const show = (object: T, created: boolean): void => {
      const key = name(object);
      const line = describe(object);
      if (this.#last.get(key) === line) return;
      this.#last.set(key, line);
      this.#print(`${key} ${created ? 'created' : 'now'}: ${line}`);
    };
    informer.addEventHandler({
      onAdd: (object) => show(object, true),
      onUpdate: (_old, object) => show(object, false),
      onDelete: (deleted) => {
        const key = name(finalStateOf(deleted));
        this.#last.delete(key);
        this.#print(`${key} deleted`);
      },
    });
    return informer;
  }

  start(signal: AbortSignal): Promise<void> {
    this.#factory.start(signal);
    return this.#factory.waitForSync(signal);
  }

  stop(): Promise<void> {
    return this.#factory.stop();
  }
}
