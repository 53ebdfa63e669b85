import type { Clientset } from '@k/clientset';
import type { Deployment } from '@k/clientset/apps/v1';
import type { ConfigMap, Service } from '@k/clientset/core/v1';
import {
  EventRecorder,
  Manager,
  SILENT_LOGGER,
  finalStateOf,
  requestFor,
  type Controller,
  type Informer,
  type Logger,
  type MetricsSink,
  type ServerAddress,
} from '@k/runtime';
import { createWebappsClient, type WebApp } from './generated/web-app-v1alpha1.js';
import { FIELD_MANAGER, LEASE_NAME, MANAGED_BY_LABEL, REGISTRY_NAME } from './names.js';
import { WebAppReconciler } from './reconcile/webapp-reconciler.js';
import { WebAppRegistry } from './reconcile/webapp-registry.js';

/** OperatorSettings are what the operator does, as resolved from its flags. */
export interface OperatorSettings {
  /** watchNamespace limits the operator to one namespace; `''` watches every namespace. */
  watchNamespace: string;
  /** operatorNamespace holds the leader-election Lease and the registry ConfigMap. */
  operatorNamespace: string;
  /** leaderElection: compete for the Lease and reconcile only while leading (default true). */
  leaderElection: boolean;
  /** identity names this process in the Lease. */
  identity: string;
  maxConcurrentReconciles: number;
  /** serve is where `/healthz`, `/readyz` and `/metrics` listen (port 0: a free one), or false for nowhere. */
  serve: { host?: string; port: number } | false;
  /** leaseDurationMs, renewDeadlineMs and retryPeriodMs: client-go's 15 s, 10 s and 2 s unless set. */
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
}

/** OperatorOptions are the operator's collaborators besides the clientset. */
export interface OperatorOptions {
  logger?: Logger;
  metrics?: MetricsSink;
  /** onListening is told where the health and metrics server listens. */
  onListening?: (address: ServerAddress) => void;
}

/**
 * WebAppOperator is the WebApp controller in a @k/runtime {@link Manager}: shared informers on
 * WebApps, on the Deployments and Services it manages (selected by the
 * `app.kubernetes.io/managed-by` label, so the cache holds only its own) and on the registry
 * ConfigMap; the controller (`for(webapps).owns(deployments).owns(services)`, and registry
 * changes enqueue the WebApps whose entry is missing); leader election on a Lease, so only one
 * replica reconciles while the others keep a warm cache; Events on the WebApps
 * (events.k8s.io/v1, sent in the background); `/healthz`, `/readyz` and `/metrics`.
 */
export class WebAppOperator {
  readonly settings: OperatorSettings;
  readonly manager: Manager;
  readonly webapps: Informer<WebApp>;
  readonly deployments: Informer<Deployment>;
  readonly services: Informer<Service>;
  readonly registryConfigMaps: Informer<ConfigMap>;
  readonly reconciler: WebAppReconciler;
  readonly controller: Controller;
  readonly events: EventRecorder;

  constructor(clientset: Clientset, settings: OperatorSettings, options: OperatorOptions = {}) {
    this.settings = settings;
    const logger = options.logger ?? SILENT_LOGGER;
    const namespace = settings.watchNamespace;
    this.manager = new Manager({
      port: settings.serve === false ? false : settings.serve.port,
      ...(settings.serve !== false && settings.serve.host ? { host: settings.serve.host } : {}),
      ...(options.onListening ? { onListening: options.onListening } : {}),
      logger,
      ...(options.metrics ? { metrics: options.metrics } : {}),
      ...(settings.leaderElection
        ? {
            leaderElection: {
              leases: clientset.coordinationV1.leases(settings.operatorNamespace),
              name: LEASE_NAME,
              identity: settings.identity,
              ...(settings.leaseDurationMs ? { leaseDurationMs: settings.leaseDurationMs } : {}),
              ...(settings.renewDeadlineMs ? { renewDeadlineMs: settings.renewDeadlineMs } : {}),
              ...(settings.retryPeriodMs ? { retryPeriodMs: settings.retryPeriodMs } : {}),
              onNewLeader: (identity: string) => logger.info('leader', { identity }),
            },
          }
        : {}),
    });
    const managed = { labelSelector: { [MANAGED_BY_LABEL]: FIELD_MANAGER } };
    this.webapps = this.manager.informerFor(createWebappsClient(clientset.rest, namespace));
    this.deployments = this.manager.informerFor(clientset.appsV1.deployments(namespace), managed);
    this.services = this.manager.informerFor(clientset.coreV1.services(namespace), managed);
    const registryClient = clientset.coreV1.configMaps(settings.operatorNamespace);
    this.registryConfigMaps = this.manager.informerFor(registryClient, {
      fieldSelector: `metadata.name=${REGISTRY_NAME}`,
    });
    const registry = new WebAppRegistry(registryClient, this.registryConfigMaps.lister);
    this.events = new EventRecorder(clientset, {
      reportingController: 'apps.k.example/demo-operator',
      reportingInstance: settings.identity,
      logger,
    });
    this.manager.closeOnShutdown(this.events);
    this.reconciler = new WebAppReconciler(
      clientset,
      {
        webapps: this.webapps.lister,
        deployments: this.deployments.lister,
        services: this.services.lister,
      },
      registry,
      this.events,
    );
    this.controller = this.manager
      .controller('webapp')
      .for(this.webapps)
      .owns(this.deployments)
      .owns(this.services)
      .watches(this.registryConfigMaps, (configMap) =>
        WebAppRegistry.missingEntries(finalStateOf(configMap), this.webapps.lister.list()).map(
          requestFor,
        ),
      )
      .withOptions({ maxConcurrentReconciles: settings.maxConcurrentReconciles })
      .complete(async (request, context) => {
        const writes = await this.reconciler.reconcile(request, context);
        if (writes.length > 0) {
          logger.info('reconciled', {
            webapp: `${request.namespace}/${request.name}`,
            wrote: writes.join(','),
          });
        }
      });
  }

  /** isLeader is true while this process reconciles. */
  get isLeader(): boolean {
    return this.manager.isLeader;
  }

  /**
   * run reconciles until `signal` aborts, then drains, releases the Lease and resolves; it
   * rejects when something fails, `ERR_RUNTIME_LEADERSHIP_LOST` included: a replica that lost
   * its Lease must not go on (its program exits and is restarted, as controller-runtime's do).
   */
  run(signal: AbortSignal): Promise<void> {
    return this.manager.start(signal);
  }
}
