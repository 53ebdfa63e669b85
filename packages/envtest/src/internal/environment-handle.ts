import type { ControlPlane } from '@k/testenv';
import { applyAs } from '../apply.js';
import { EnvironmentAuditLog } from '../audit.js';
import { installCrds } from '../crds.js';
import { ownedFaults, startFaultProxy, type OwnedFaults } from '../faults.js';
import { toEnvtestError } from '../errors.js';
import { createTestNamespace } from '../namespaces.js';
import { EnvironmentUser } from '../test-user.js';
import { createServiceAccountUser, createUser } from '../users.js';
import { createEnvironmentWebhookServing, installWebhooks } from '../webhooks.js';
import type {
  ApplyOptions,
  AuditLog,
  ComponentName,
  CrdSource,
  Environment,
  EnvironmentBinaries,
  EnvironmentFaultProxy,
  EnvironmentProcess,
  InstalledCrds,
  InstalledWebhooks,
  InstallWebhooksOptions,
  OwnedEnvironment,
  ServiceAccountUserOptions,
  TestNamespace,
  TestNamespaceOptions,
  TestUser,
  TestUserOptions,
  WebhookServing,
  WebhookServingOptions,
} from '../types.js';
import { closeAll, type EnvironmentContext } from './context.js';

/**
 * EnvironmentHandle is an {@link Environment}: a view of a running plane with the built-in users
 * and what this handle made. `close()` closes exactly that; the plane keeps running.
 */
export class EnvironmentHandle implements Environment {
  readonly server: string;
  readonly caPem: string;
  readonly kubeconfigPath: string;
  readonly kubernetesVersion: string;
  readonly components: readonly ComponentName[];
  readonly nodes: readonly string[];
  readonly admin: TestUser;
  readonly unprivileged: TestUser;
  readonly editor: TestUser;
  readonly audit: AuditLog;
  protected readonly context: EnvironmentContext;

  constructor(context: EnvironmentContext) {
    this.context = context;
    const { state } = context;
    this.server = state.server;
    this.caPem = state.caPem;
    this.kubeconfigPath = state.kubeconfigPath;
    this.kubernetesVersion = state.kubernetesVersion;
    this.components = context.components;
    this.nodes = [...(state.nodes ?? [])];
    this.audit = new EnvironmentAuditLog(state.auditLogPath);
    this.admin = new EnvironmentUser(context, {
      name: 'admin',
      groups: ['system:masters'],
      credentials: { certPem: state.users.admin.certPem, keyPem: state.users.admin.keyPem },
    });
    this.unprivileged = new EnvironmentUser(context, {
      name: 'alice',
      groups: [],
      credentials: { certPem: state.users.alice.certPem, keyPem: state.users.alice.keyPem },
    });
    this.editor = new EnvironmentUser(context, {
      name: 'tester',
      groups: ['k-testenv:testers'],
      credentials: { token: state.users.tester.token },
    });
  }

  user(options?: TestUserOptions): Promise<TestUser> {
    return createUser(this.context, this.admin, options);
  }

  serviceAccountUser(options: ServiceAccountUserOptions): Promise<TestUser> {
    return createServiceAccountUser(this.context, this.admin, options);
  }

  createTestNamespace(options?: TestNamespaceOptions): Promise<TestNamespace> {
    return createTestNamespace(this.context, this.admin, options);
  }

  installCrds(source: CrdSource): Promise<InstalledCrds> {
    return installCrds(this.context, this.admin, source);
  }

  apply(manifests: string | readonly object[], options?: ApplyOptions): Promise<void> {
    return applyAs(this.admin, manifests, options);
  }

  faultProxy(): Promise<EnvironmentFaultProxy> {
    return startFaultProxy(this.context, this.admin);
  }

  webhookServing(options?: WebhookServingOptions): Promise<WebhookServing> {
    return createEnvironmentWebhookServing(this.context, options);
  }

  installWebhooks(options: InstallWebhooksOptions): Promise<InstalledWebhooks> {
    return installWebhooks(this.context, this.admin, options);
  }

  close(): Promise<void> {
    return closeAll(this.context.closeables);
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/**
 * OwnedEnvironmentHandle is an {@link OwnedEnvironment}: the handle of a plane this process
 * started. `stop()` closes what the handle made, then stops the plane, once.
 */
export class OwnedEnvironmentHandle extends EnvironmentHandle implements OwnedEnvironment {
  readonly runDir: string;
  readonly binaries: EnvironmentBinaries;
  readonly #plane: ControlPlane;
  readonly #faults: OwnedFaults;
  #stopping: Promise<void> | undefined;

  constructor(context: EnvironmentContext, plane: ControlPlane, binaries: EnvironmentBinaries) {
    super(context);
    this.#plane = plane;
    this.#faults = ownedFaults(plane, context.components);
    this.runDir = plane.runDir;
    this.binaries = binaries;
  }

  /** processes: the running processes, in start order (a restarted one has a new pid). */
  get processes(): readonly EnvironmentProcess[] {
    return this.#plane.processes.map(({ name, pid, logPath }) => ({ name, pid, logPath }));
  }

  restart(component: ComponentName): Promise<void> {
    return this.#faults.restart(component);
  }

  stopComponent(component: ComponentName): Promise<void> {
    return this.#faults.stopComponent(component);
  }

  startComponent(component: ComponentName): Promise<void> {
    return this.#faults.startComponent(component);
  }

  compactEtcd(): Promise<number> {
    return this.#faults.compactEtcd();
  }

  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      try {
        await this.close();
      } finally {
        // The plane stops whatever close() said: nothing may outlive stop().
        await engineCall(() => this.#plane.stop(), [this.context.state.users.tester.token]);
      }
    })();
    return this.#stopping;
  }

  override [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }
}

/** engineCall runs an engine operation and converts its errors to EnvtestErrors, without `secrets`. */
async function engineCall<T>(operation: () => Promise<T>, secrets: readonly string[]): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw toEnvtestError(error, secrets);
  }
}
