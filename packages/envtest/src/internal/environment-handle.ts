import type { ControlPlane } from '@k/testenv';
import { applyAs } from '../apply.js';
import { toEnvtestError } from '../errors.js';
import { EnvironmentUser } from '../test-user.js';
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

function notAvailable(what: string): Error {
  return new Error(`${what} is not available in this build of @k/envtest yet (issue 27)`);
}

const UNAVAILABLE_AUDIT: AuditLog = {
  get path(): string {
    throw notAvailable('audit');
  },
  mark: () => Promise.reject(notAvailable('audit.mark')),
  records: () => Promise.reject(notAvailable('audit.records')),
  waitFor: () => Promise.reject(notAvailable('audit.waitFor')),
};

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
  readonly audit: AuditLog = UNAVAILABLE_AUDIT;
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

  user(_options?: TestUserOptions): Promise<TestUser> {
    return Promise.reject(notAvailable('user()'));
  }

  serviceAccountUser(_options: ServiceAccountUserOptions): Promise<TestUser> {
    return Promise.reject(notAvailable('serviceAccountUser()'));
  }

  createTestNamespace(_options?: TestNamespaceOptions): Promise<TestNamespace> {
    return Promise.reject(notAvailable('createTestNamespace()'));
  }

  installCrds(_source: CrdSource): Promise<InstalledCrds> {
    return Promise.reject(notAvailable('installCrds()'));
  }

  apply(manifests: string | readonly object[], options?: ApplyOptions): Promise<void> {
    return applyAs(this.admin, manifests, options);
  }

  faultProxy(): Promise<EnvironmentFaultProxy> {
    return Promise.reject(notAvailable('faultProxy()'));
  }

  webhookServing(_options?: WebhookServingOptions): Promise<WebhookServing> {
    return Promise.reject(notAvailable('webhookServing()'));
  }

  installWebhooks(_options: InstallWebhooksOptions): Promise<InstalledWebhooks> {
    return Promise.reject(notAvailable('installWebhooks()'));
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
  #stopping: Promise<void> | undefined;

  constructor(context: EnvironmentContext, plane: ControlPlane, binaries: EnvironmentBinaries) {
    super(context);
    this.#plane = plane;
    this.runDir = plane.runDir;
    this.binaries = binaries;
  }

  /** processes: the running processes, in start order (a restarted one has a new pid). */
  get processes(): readonly EnvironmentProcess[] {
    return this.#plane.processes.map(({ name, pid, logPath }) => ({ name, pid, logPath }));
  }

  restart(component: ComponentName): Promise<void> {
    return engineCall(() => this.#plane.restart(component));
  }

  stopComponent(component: ComponentName): Promise<void> {
    return engineCall(() => this.#plane.stopComponent(component));
  }

  startComponent(component: ComponentName): Promise<void> {
    return engineCall(() => this.#plane.startComponent(component));
  }

  compactEtcd(): Promise<number> {
    return engineCall(() => this.#plane.compactEtcd());
  }

  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      try {
        await this.close();
      } finally {
        // The plane stops whatever close() said: nothing may outlive stop().
        await engineCall(() => this.#plane.stop());
      }
    })();
    return this.#stopping;
  }

  override [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }
}

/** engineCall runs an engine operation and converts its errors to EnvtestErrors. */
async function engineCall<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw toEnvtestError(error);
  }
}
