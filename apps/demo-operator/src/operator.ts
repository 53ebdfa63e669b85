import type { Clientset } from '@k/clientset';
import type { Deployment } from '@k/clientset/apps/v1';
import type { ConfigMap, Service } from '@k/clientset/core/v1';
import {
  OwnWrites,
  SILENT_LOGGER,
  requestFor,
  type Controller,
  type EventRecorder,
  type Informer,
  type Logger,
  type Manager,
  type WebhookServer,
  type WebhookServerAddress,
} from '@k/runtime';
import type { WebhookCertificateOptions } from '@k/runtime/webhook';
import {
  createWebAppsClient,
  type WebApp,
  type WebAppsClient,
} from './generated/web-app-v1beta1.js';
import { FIELD_MANAGER, MANAGED_BY_LABEL, REGISTRY_NAMESPACE_LABEL } from './names.js';
import { WebAppReconciler } from './reconcile/webapp-reconciler.js';
import { WebAppRegistry } from './reconcile/webapp-registry.js';
import { registerWebAppWebhooks } from './webhooks/register-webhooks.js';

/** BindAddress is a host (none: every interface) and a port to listen on. */
export interface BindAddress {
  host?: string;
  port: number;
}

/** OperatorSettings are what the operator does, as resolved from its flags. */
export interface OperatorSettings {
  /** watchNamespace limits the operator to one namespace; `''` watches every namespace. */
  watchNamespace: string;
  /** operatorNamespace holds the leader-election Lease and the registry ConfigMaps. */
  operatorNamespace: string;
  /** leaderElection: compete for the Lease and reconcile only while leading (default true). */
  leaderElection: boolean;
  /** identity names this process in the Lease. */
  identity: string;
  maxConcurrentReconciles: number;
  /** probes is where `/healthz` and `/readyz` listen (port 0: a free one), or false for nowhere. */
  probes: BindAddress | false;
  /** metricsServer is where `/metrics` listens (port 0: a free one), or false for nowhere. */
  metricsServer: BindAddress | false;
  /**
   * webhookServer is where the admission and conversion webhooks listen (HTTPS), or false for
   * nowhere (outside a cluster, whose API server could not call it).
   */
  webhookServer: BindAddress | false;
  /** webhookCertDir holds the webhook server's `tls.crt` and `tls.key`. */
  webhookCertDir: string;
  /** webhookCertificate, when set, is served instead of the files of `webhookCertDir` (e.g. a self-signed one). */
  webhookCertificate?: WebhookCertificateOptions;
  /** leaseDurationMs, renewDeadlineMs and retryPeriodMs: client-go's 15 s, 10 s and 2 s unless set. */
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
}

/**
 * WebAppOperator is the WebApp controller in a @k/runtime `Manager`: shared informers on
 * WebApps, on the Deployments and Services it manages (selected by the
 * `app.kubernetes.io/managed-by` label, so the cache holds only its own) and on the registry's
 * ConfigMaps (one per namespace); the controller (`for(webapps).owns(deployments).owns(services)`,
 * and a registry change enqueues its namespace's WebApps whose entry is missing); Events on the
 * WebApps. The Manager
 * (see `registerOperator`) adds leader election on a Lease, so only one replica reconciles while
 * the others keep a warm cache, and `/healthz`, `/readyz` and (on loopback by default) `/metrics`.
 */
export class WebAppOperator {
  readonly settings: OperatorSettings;
  readonly manager: Manager;
  readonly webapps: Informer<WebApp>;
  readonly deployments: Informer<Deployment>;
  readonly services: Informer<Service>;
  readonly registryConfigMaps: Informer<ConfigMap>;
  readonly reconciler: WebAppReconciler;
  readonly controller: Controller<WebApp, WebAppsClient>;
  readonly events: EventRecorder;
  /** webhooks serves the WebApp's validating, mutating and conversion webhooks; undefined when `settings.webhookServer` is false. */
  readonly webhooks: WebhookServer | undefined;
  /** webhookAddress resolves once the webhook server listens. */
  readonly webhookAddress: Promise<WebhookServerAddress> | undefined;

  /**
   * The operator adds its informers and its controller to `manager` (which runs them), writes
   * through `clientset` and tells what it did through `events`.
   */
  constructor(
    manager: Manager,
    clientset: Clientset,
    events: EventRecorder,
    settings: OperatorSettings,
    logger: Logger = SILENT_LOGGER,
  ) {
    this.settings = settings;
    this.manager = manager;
    this.events = events;
    const namespace = settings.watchNamespace;
    const managed = { labelSelector: { [MANAGED_BY_LABEL]: FIELD_MANAGER } };
    const webapps = createWebAppsClient(clientset.rest, namespace);
    this.webapps = this.manager.informerFor(webapps);
    this.deployments = this.manager.informerFor(clientset.appsV1.deployments(namespace), managed);
    this.services = this.manager.informerFor(clientset.coreV1.services(namespace), managed);
    const registryClient = clientset.coreV1.configMaps(settings.operatorNamespace);
    this.registryConfigMaps = this.manager.informerFor(registryClient, {
      labelSelector: `${REGISTRY_NAMESPACE_LABEL},${MANAGED_BY_LABEL}=${FIELD_MANAGER}`,
    });
    if (settings.webhookServer) {
      let listening!: (address: WebhookServerAddress) => void;
      this.webhookAddress = new Promise((resolve) => (listening = resolve));
      this.webhooks = registerWebAppWebhooks(
        manager.webhookServer({
          ...settings.webhookServer,
          certificate: settings.webhookCertificate ?? { certDir: settings.webhookCertDir },
          onListening: listening,
        }),
        clientset,
      );
    }
    const registry = new WebAppRegistry(registryClient, new OwnWrites(this.registryConfigMaps));
    this.reconciler = new WebAppReconciler(
      clientset,
      {
        deployments: new OwnWrites(this.deployments),
        services: new OwnWrites(this.services),
      },
      registry,
      this.events,
    );
    this.controller = this.manager
      .controller('webapp')
      .for(webapps)
      .owns(this.deployments)
      .owns(this.services)
      // A namespace's registry changed: its WebApps whose entry is missing, from the cache as it
      // is now (a deleted ConfigMap's last state still lists every entry).
      .watches(this.registryConfigMaps, (configMap) => {
        const namespace = WebAppRegistry.namespaceListedBy(configMap);
        if (namespace === undefined) return [];
        return registry.missingEntries(this.webapps.lister.list(namespace)).map(requestFor);
      })
      .withOptions({
        maxConcurrentReconciles: settings.maxConcurrentReconciles,
        recorder: this.events,
      })
      .complete(
        this.reconciler.reconciler((webapp, writes) => {
          if (writes.length === 0) return;
          logger.info('reconciled', {
            webapp: `${webapp.metadata?.namespace}/${webapp.metadata?.name}`,
            wrote: writes.join(','),
          });
        }),
      );
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
