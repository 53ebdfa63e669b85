import type { Clientset } from '@k/clientset';
import type { Deployment } from '@k/clientset/apps/v1';
import type { ConfigMap, Service } from '@k/clientset/core/v1';
import {
  ControllerBuilder,
  InformerFactory,
  LeaderElector,
  SILENT_LOGGER,
  finalStateOf,
  requestFor,
  type Controller,
  type Informer,
  type Logger,
  type MetricsSink,
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
  /** leaseDurationMs, renewDeadlineMs and retryPeriodMs: client-go's 15 s, 10 s and 2 s unless set. */
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
}

/** How {@link WebAppOperator.run} ended. */
export type OperatorExit = 'stopped' | 'leadership-lost';

/**
 * WebAppOperator is the WebApp controller and what it needs: shared informers on WebApps, on the
 * Deployments and Services it manages (selected by the `app.kubernetes.io/managed-by` label, so
 * the cache holds only its own) and on the registry ConfigMap; the controller
 * (`for(webapps).owns(deployments).owns(services)`, registry changes enqueue the WebApps whose
 * entry is missing); and leader election on a Lease, so only one replica reconciles.
 */
export class WebAppOperator {
  readonly settings: OperatorSettings;
  readonly factory: InformerFactory;
  readonly webapps: Informer<WebApp>;
  readonly deployments: Informer<Deployment>;
  readonly services: Informer<Service>;
  readonly registryConfigMaps: Informer<ConfigMap>;
  readonly reconciler: WebAppReconciler;
  readonly controller: Controller;
  readonly #clientset: Clientset;
  readonly #logger: Logger;
  #elector: LeaderElector | undefined;

  constructor(
    clientset: Clientset,
    settings: OperatorSettings,
    options: { logger?: Logger; metrics?: MetricsSink } = {},
  ) {
    this.settings = settings;
    this.#clientset = clientset;
    this.#logger = options.logger ?? SILENT_LOGGER;
    const logger = this.#logger;
    const namespace = settings.watchNamespace;
    this.factory = new InformerFactory({ logger });
    const managed = { labelSelector: { [MANAGED_BY_LABEL]: FIELD_MANAGER } };
    this.webapps = this.factory.informerFor(createWebappsClient(clientset.rest, namespace));
    this.deployments = this.factory.informerFor(clientset.appsV1.deployments(namespace), managed);
    this.services = this.factory.informerFor(clientset.coreV1.services(namespace), managed);
    const registryClient = clientset.coreV1.configMaps(settings.operatorNamespace);
    this.registryConfigMaps = this.factory.informerFor(registryClient, {
      fieldSelector: `metadata.name=${REGISTRY_NAME}`,
    });
    const registry = new WebAppRegistry(registryClient, this.registryConfigMaps.lister);
    this.reconciler = new WebAppReconciler(
      clientset,
      {
        webapps: this.webapps.lister,
        deployments: this.deployments.lister,
        services: this.services.lister,
      },
      registry,
    );
    this.controller = new ControllerBuilder('webapp')
      .for(this.webapps)
      .owns(this.deployments)
      .owns(this.services)
      .watches(this.registryConfigMaps, (configMap) =>
        WebAppRegistry.missingEntries(finalStateOf(configMap), this.webapps.lister.list()).map(
          requestFor,
        ),
      )
      .withOptions({
        maxConcurrentReconciles: settings.maxConcurrentReconciles,
        logger,
        ...(options.metrics ? { metrics: options.metrics } : {}),
      })
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

  /** isLeader is true while this process reconciles (always, without leader election, once running). */
  get isLeader(): boolean {
    return this.#elector ? this.#elector.isLeader : this.controller.synced;
  }

  /**
   * run reconciles until `signal` aborts (then drains and resolves `'stopped'`) or, with leader
   * election, until leadership is lost (`'leadership-lost'`: a replica that lost its Lease must not
   * go on, so the program exits and is restarted, as controller-runtime's do).
   */
  async run(signal: AbortSignal): Promise<OperatorExit> {
    if (!this.settings.leaderElection) {
      await this.controller.start(signal);
      return 'stopped';
    }
    let controllerRun: Promise<void> | undefined;
    const elector = new LeaderElector(
      this.#clientset.coordinationV1.leases(this.settings.operatorNamespace),
      {
        name: LEASE_NAME,
        identity: this.settings.identity,
        logger: this.#logger,
        ...(this.settings.leaseDurationMs
          ? { leaseDurationMs: this.settings.leaseDurationMs }
          : {}),
        ...(this.settings.renewDeadlineMs
          ? { renewDeadlineMs: this.settings.renewDeadlineMs }
          : {}),
        ...(this.settings.retryPeriodMs ? { retryPeriodMs: this.settings.retryPeriodMs } : {}),
        onStartedLeading: (leading) => {
          controllerRun = this.controller.start(leading);
          return controllerRun;
        },
        onNewLeader: (identity) => this.#logger.info('leader', { identity }),
      },
    );
    this.#elector = elector;
    await elector.run(signal);
    await controllerRun;
    return signal.aborted ? 'stopped' : 'leadership-lost';
  }
}
