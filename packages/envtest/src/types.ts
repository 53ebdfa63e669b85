import type { Clientset, ClientsetOptions } from '@k/clientset';
import type {
  MutatingWebhookConfiguration,
  ValidatingWebhookConfiguration,
} from '@k/clientset/admissionregistration/v1';
import type { CustomResourceDefinition } from '@k/clientset/apiextensions/v1';
import type { PolicyRule } from '@k/clientset/rbac/v1';

/** ComponentName names the processes of a control plane. */
export type ComponentName =
  'etcd' | 'kube-apiserver' | 'kube-controller-manager' | 'kube-scheduler' | 'kwok';

/** ProgressEvent is one step of a build or start, for {@link EnvironmentOptions.onProgress}. */
export interface ProgressEvent {
  readonly kind: 'start' | 'end' | 'heartbeat' | 'info';
  readonly step: string;
  readonly elapsedMs: number;
  readonly message: string;
}

/**
 * BinariesOption says where kube-apiserver and etcd come from. `'auto'` (the default) tries an
 * explicit directory, then `TEST_ASSET_KUBE_APISERVER`/`TEST_ASSET_ETCD`/`TEST_ASSET_KUBECTL`,
 * then `KUBEBUILDER_ASSETS`, then the cache, then a Go build; `'cache'` ignores the environment;
 * `{ directory }` is a setup-envtest layout (`kube-apiserver`, `etcd`, optionally `kubectl`,
 * `kube-controller-manager`, `kube-scheduler`).
 */
export type BinariesOption = 'auto' | 'cache' | { readonly directory: string };

/** EnvironmentOptions configure {@link startEnvironment}. Every field may be `undefined`. */
export interface EnvironmentOptions {
  /** binaries: where kube-apiserver and etcd come from (default `'auto'`). */
  readonly binaries?: BinariesOption | undefined;
  /** build: allow a Go build when nothing is cached (default true). */
  readonly build?: boolean | undefined;
  /** cacheRoot: default `K_ENVTEST_CACHE`, else `$XDG_CACHE_HOME/k-envtest`, else `~/.cache/k-envtest`. */
  readonly cacheRoot?: string | undefined;
  /**
   * controllerManager and scheduler default to true when the binaries have them; asking for one
   * the binaries lack is `ERR_ENVTEST_COMPONENT_UNAVAILABLE`.
   */
  readonly controllerManager?: boolean | undefined;
  readonly scheduler?: boolean | undefined;
  /** nodes: kwok nodes; default 2 when kwok is available and the scheduler runs, else 0. */
  readonly nodes?: number | undefined;
  readonly extraApiServerFlags?: readonly string[] | undefined;
  readonly extraControllerManagerFlags?: readonly string[] | undefined;
  readonly extraSchedulerFlags?: readonly string[] | undefined;
  readonly extraEtcdFlags?: readonly string[] | undefined;
  readonly extraKwokFlags?: readonly string[] | undefined;
  /** crds are installed (Established and in discovery) before the start resolves. */
  readonly crds?: CrdSource | undefined;
  /** timeoutMs: the budget for the start once the binaries are there (default 120 000). */
  readonly timeoutMs?: number | undefined;
  /** stopGraceMs: how long a component may take to stop after SIGTERM (default 10 000). */
  readonly stopGraceMs?: number | undefined;
  /** onProgress: default build progress to stderr, start steps silent. */
  readonly onProgress?: ((event: ProgressEvent) => void) | undefined;
}

/** TestUserClientsetOptions configure {@link TestUser.clientset}. */
export interface TestUserClientsetOptions {
  readonly userAgent?: string | undefined;
  /** throttle: default `'off'` (controller-runtime's envtest uses QPS 1000 / burst 2000). */
  readonly throttle?: ClientsetOptions['throttle'] | undefined;
}

/** TestUser is an identity the control plane knows, with a kubeconfig and clientsets for it. */
export interface TestUser {
  readonly name: string;
  readonly groups: readonly string[];
  /** kubeconfigPath: one context, this user, mode 0600, inside the plane's run dir (removed with it). */
  readonly kubeconfigPath: string;
  readonly credentials:
    { readonly certPem: string; readonly keyPem: string } | { readonly token: string };
  /**
   * clientset gives a clientset for this user, memoized per options and closed by the
   * environment's `close()`/`stop()`.
   */
  clientset(options?: TestUserClientsetOptions): Promise<Clientset>;
}

/** TestUserOptions configure {@link Environment.user}. */
export interface TestUserOptions {
  /** name: default `k-envtest-user-<8 hex>`. */
  readonly name?: string | undefined;
  /** groups: the certificate's organizations. */
  readonly groups?: readonly string[] | undefined;
  /** rules become a Role (with `namespace`) or a ClusterRole, and a binding to this user. */
  readonly rules?: readonly PolicyRule[] | undefined;
  /** role binds an existing Role (needs `namespace`). */
  readonly role?: string | undefined;
  /** clusterRole binds an existing ClusterRole (in `namespace` with a RoleBinding, else cluster-wide). */
  readonly clusterRole?: string | undefined;
  /** namespace: where the Role and RoleBinding go; absent means cluster-wide (ClusterRoleBinding). */
  readonly namespace?: string | undefined;
}

/** ServiceAccountUserOptions configure {@link Environment.serviceAccountUser}. */
export interface ServiceAccountUserOptions {
  readonly namespace: string;
  /** name: the ServiceAccount, created when missing. */
  readonly name: string;
  /** expirationSeconds: the TokenRequest's (default 3600). */
  readonly expirationSeconds?: number | undefined;
}

/** TestNamespaceOptions configure {@link TestCluster.createTestNamespace}. */
export interface TestNamespaceOptions {
  readonly prefix?: string | undefined;
  /** labels are added to `k-envtest/test-namespace=true`. */
  readonly labels?: Readonly<Record<string, string>> | undefined;
  /** waitForServiceAccount: default true when kube-controller-manager runs (it creates `default`). */
  readonly waitForServiceAccount?: boolean | undefined;
  readonly timeoutMs?: number | undefined;
}

/** TestNamespaceDeleteOptions configure {@link TestNamespace.delete}. */
export interface TestNamespaceDeleteOptions {
  /** wait: resolve once the namespace is gone (default true). */
  readonly wait?: boolean | undefined;
  /** timeoutMs: default 60 000; then `ERR_ENVTEST_NAMESPACE_STUCK`. */
  readonly timeoutMs?: number | undefined;
}

/** TestNamespace is a namespace made for a test; disposing it deletes it and waits. */
export interface TestNamespace extends AsyncDisposable {
  readonly name: string;
  /**
   * delete starts the deletion and, with `wait`, resolves once the namespace is gone. At the
   * deadline it throws `ERR_ENVTEST_NAMESPACE_STUCK`, naming each object still there
   * (`<resource>.<group>/<name>`, deletionTimestamp, finalizers) and the namespace's
   * NamespaceContentRemaining and NamespaceFinalizersRemaining conditions. With `wait` it empties
   * and finalizes the namespace itself, as the namespace controller would: without
   * kube-controller-manager nothing else does, and beside it this skips that controller's fixed
   * 5 s wait before it starts. `wait: false` only sends the delete.
   */
  delete(options?: TestNamespaceDeleteOptions): Promise<void>;
}

/** CrdSource names CustomResourceDefinitions to install. */
export interface CrdSource {
  /**
   * paths: files, or directories read non-recursively (`*.yaml`, `*.yml`, `*.json`, several
   * documents each); documents that are not CRDs are skipped.
   */
  readonly paths?: readonly string[] | undefined;
  readonly objects?: readonly CustomResourceDefinition[] | undefined;
  /** errorIfPathMissing: default true (controller-runtime's default is false and skips silently). */
  readonly errorIfPathMissing?: boolean | undefined;
  /** timeoutMs: until Established and listed in discovery for every served version (default 30 000). */
  readonly timeoutMs?: number | undefined;
  /**
   * conversion points `spec.conversion` of CRDs whose strategy is Webhook (or of all, with
   * `all: true`) at a local server.
   */
  readonly conversion?:
    | {
        readonly serving: WebhookServing;
        readonly path?: string | undefined;
        readonly port?: number | undefined;
        readonly all?: boolean | undefined;
      }
    | undefined;
}

/** InstalledCrds are the CRDs an `installCrds` call applied. */
export interface InstalledCrds {
  readonly names: readonly string[];
  /** uninstall deletes them and waits until they are gone. */
  uninstall(): Promise<void>;
}

/** ApplyOptions configure {@link TestCluster.apply}. */
export interface ApplyOptions {
  /** namespace for namespaced objects that name none. */
  readonly namespace?: string | undefined;
  /** fieldManager: default `k-envtest`. */
  readonly fieldManager?: string | undefined;
}

/**
 * TestCluster is what a test needs from a Kubernetes API: the real control plane
 * ({@link Environment}) and, later, an in-process fake implement it, so one suite runs on both.
 */
export interface TestCluster {
  readonly admin: Pick<TestUser, 'clientset'>;
  createTestNamespace(options?: TestNamespaceOptions): Promise<TestNamespace>;
  /** apply server-side-applies manifests (YAML text or objects) as admin. */
  apply(manifests: string | readonly object[], options?: ApplyOptions): Promise<void>;
}

/** AuditMark is a position in the audit log: records after it are the requests made since. */
export interface AuditMark {
  readonly offset: number;
}

/** AuditQuery selects audit records; strings match exactly, RegExps search. */
export interface AuditQuery {
  readonly since?: AuditMark | undefined;
  readonly user?: string | RegExp | undefined;
  readonly impersonatedUser?: string | RegExp | undefined;
  readonly userAgent?: string | RegExp | undefined;
  readonly verb?: string | RegExp | undefined;
  readonly resource?: string | RegExp | undefined;
  readonly subresource?: string | RegExp | undefined;
  readonly apiGroup?: string | RegExp | undefined;
  readonly namespace?: string | RegExp | undefined;
  readonly name?: string | RegExp | undefined;
  readonly code?: number | undefined;
  /** writes: only create, update, patch, delete and deletecollection. */
  readonly writes?: boolean | undefined;
}

/** AuditRecord is one request as kube-apiserver's audit log tells it (Metadata level). */
export interface AuditRecord {
  readonly auditID: string;
  readonly stage: string;
  readonly user: string;
  readonly groups: readonly string[];
  readonly impersonatedUser: string | undefined;
  readonly impersonatedGroups: readonly string[];
  readonly userAgent: string;
  readonly verb: string;
  readonly requestURI: string;
  readonly resource: string | undefined;
  readonly subresource: string | undefined;
  readonly apiGroup: string | undefined;
  readonly namespace: string | undefined;
  readonly name: string | undefined;
  readonly code: number | undefined;
  /** receivedAt: when kube-apiserver received the request (ms since the epoch). */
  readonly receivedAt: number;
}

/** AuditWaitOptions configure {@link AuditLog.waitFor}. */
export interface AuditWaitOptions {
  readonly timeoutMs?: number | undefined;
  /** settleMs: one more read this long after `count` was reached, so a surplus shows (default 300). */
  readonly settleMs?: number | undefined;
}

/** AuditLog reads the control plane's audit log: who did what. */
export interface AuditLog {
  readonly path: string;
  /** mark is the log's current end. */
  mark(): Promise<AuditMark>;
  records(query?: AuditQuery): Promise<AuditRecord[]>;
  /** waitFor resolves with the matching records once there are at least `count`. */
  waitFor(query: AuditQuery, count: number, options?: AuditWaitOptions): Promise<AuditRecord[]>;
}

/** EnvironmentFaultProxy is a TCP proxy in front of kube-apiserver that can cut, stall, slow or refuse. */
export interface EnvironmentFaultProxy {
  readonly server: string;
  /** kubeconfigPath: the plane's users, with the proxy as their server. */
  readonly kubeconfigPath: string;
  /** clientset for `user` (default admin) through the proxy. */
  clientset(
    user?: TestUser,
    options?: { readonly userAgent?: string | undefined },
  ): Promise<Clientset>;
  /** cut ends every open connection; new ones pass. */
  cut(): void;
  /** stall keeps connections open but forwards nothing, either way. */
  stall(): Promise<void>;
  /** latency delays every chunk by `ms`. */
  latency(ms: number): void;
  /** refuse closes the listener: new connections are refused. */
  refuse(): Promise<void>;
  /** heal forwards again as normal. */
  heal(): Promise<void>;
  close(): Promise<void>;
}

/** WebhookServingOptions configure {@link createWebhookServing}. */
export interface WebhookServingOptions {
  /** port: default a free loopback port. */
  readonly port?: number | undefined;
  /** hosts: extra subject alternative names (always IP:127.0.0.1 and DNS:localhost). */
  readonly hosts?: readonly string[] | undefined;
}

/**
 * WebhookServing is a serving certificate for a webhook server on loopback, signed by a CA of its
 * own, and the address kube-apiserver will call.
 */
export interface WebhookServing extends AsyncDisposable {
  readonly host: '127.0.0.1';
  readonly port: number;
  readonly caPem: string;
  /** caBundle: base64 of `caPem`, for webhook configurations and CRD conversion. */
  readonly caBundle: string;
  /** certPath and keyPath: `tls.crt` and `tls.key`, for a server that reloads its files. */
  readonly certPath: string;
  readonly keyPath: string;
  readonly certPem: string;
  readonly keyPem: string;
  /** url: `https://127.0.0.1:<port><path>`. */
  url(path: string, port?: number): string;
  /** rotate writes a new serving certificate from the same CA over certPath/keyPath atomically. */
  rotate(): Promise<void>;
  /** close removes its files. */
  close(): Promise<void>;
}

/** InstallWebhooksOptions configure {@link Environment.installWebhooks}. */
export interface InstallWebhooksOptions {
  readonly serving: WebhookServing;
  /** port: the port the server really listens on (default `serving.port`). */
  readonly port?: number | undefined;
  readonly validating?: readonly ValidatingWebhookConfiguration[] | undefined;
  readonly mutating?: readonly MutatingWebhookConfiguration[] | undefined;
  /** paths: manifest files or directories (kubebuilder's `config/webhook/manifests.yaml`). */
  readonly paths?: readonly string[] | undefined;
}

/** InstalledWebhooks are the webhook configurations an `installWebhooks` call applied. */
export interface InstalledWebhooks {
  readonly names: readonly string[];
  uninstall(): Promise<void>;
}

/**
 * Environment is a running control plane: one this process started ({@link OwnedEnvironment})
 * or one another process owns (the vitest global setup, `k-envtest run`/`up`).
 */
export interface Environment extends TestCluster, AsyncDisposable {
  /** server: `https://127.0.0.1:<port>`. */
  readonly server: string;
  readonly caPem: string;
  /** kubeconfigPath: contexts admin (current), alice and tester. */
  readonly kubeconfigPath: string;
  readonly kubernetesVersion: string;
  readonly components: readonly ComponentName[];
  readonly nodes: readonly string[];
  /** admin: a client certificate in `system:masters`. */
  readonly admin: TestUser;
  /** unprivileged: `alice`, authenticated with no bindings (403 everywhere). */
  readonly unprivileged: TestUser;
  /** editor: `tester`, a bearer token bound to the ClusterRole `edit`. */
  readonly editor: TestUser;
  /** user makes a new identity (a client certificate), bound to what the options say. */
  user(options?: TestUserOptions): Promise<TestUser>;
  /** serviceAccountUser is a ServiceAccount's identity, through a TokenRequest. */
  serviceAccountUser(options: ServiceAccountUserOptions): Promise<TestUser>;
  createTestNamespace(options?: TestNamespaceOptions): Promise<TestNamespace>;
  installCrds(source: CrdSource): Promise<InstalledCrds>;
  apply(manifests: string | readonly object[], options?: ApplyOptions): Promise<void>;
  readonly audit: AuditLog;
  /** faultProxy starts a proxy in front of kube-apiserver (any plane, shared ones too). */
  faultProxy(): Promise<EnvironmentFaultProxy>;
  /** webhookServing makes a serving certificate whose files live and die with the plane. */
  webhookServing(options?: WebhookServingOptions): Promise<WebhookServing>;
  /** installWebhooks points webhook configurations at a loopback server and applies them. */
  installWebhooks(options: InstallWebhooksOptions): Promise<InstalledWebhooks>;
  /**
   * close closes what this handle made (clientsets, proxies, servings, the cluster-scoped RBAC of
   * users it created); a plane another process owns keeps running.
   */
  close(): Promise<void>;
}

/** BinariesSource says where an owned plane's binaries came from. */
export interface EnvironmentBinaries {
  readonly source: 'directory' | 'TEST_ASSET' | 'KUBEBUILDER_ASSETS' | 'cache' | 'build';
  readonly directory: string;
  readonly kubectl?: string | undefined;
}

/** EnvironmentProcess is one process of an owned plane. */
export interface EnvironmentProcess {
  readonly name: ComponentName;
  readonly pid: number;
  readonly logPath: string;
}

/** OwnedEnvironment is a control plane this process started: it may break it, and must stop it. */
export interface OwnedEnvironment extends Environment {
  readonly runDir: string;
  readonly binaries: EnvironmentBinaries;
  readonly processes: readonly EnvironmentProcess[];
  restart(component: ComponentName): Promise<void>;
  stopComponent(component: ComponentName): Promise<void>;
  startComponent(component: ComponentName): Promise<void>;
  /** compactEtcd compacts etcd's history up to now and returns the revision. */
  compactEtcd(): Promise<number>;
  /** stop is idempotent: close(), then stop exactly its processes, then remove runDir. */
  stop(): Promise<void>;
}

/** EventuallyOptions configure {@link eventually}. */
export interface EventuallyOptions {
  /** timeoutMs: default 10 000. */
  readonly timeoutMs?: number | undefined;
  /** intervalMs: between attempts, default 100. */
  readonly intervalMs?: number | undefined;
  readonly signal?: AbortSignal | undefined;
}
