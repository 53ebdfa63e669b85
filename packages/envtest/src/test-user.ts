import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { inferClientset, type Clientset } from '@k/clientset';
import { renderKubeconfig } from '@k/testenv';
import type { EnvironmentContext } from './internal/context.js';
import type { TestUser, TestUserClientsetOptions } from './types.js';

/** UserCredentials are how a user proves who it is: a client certificate or a bearer token. */
export type UserCredentials =
  { readonly certPem: string; readonly keyPem: string } | { readonly token: string };

/** EnvironmentUserParts describe a user of {@link EnvironmentUser}. */
export interface EnvironmentUserParts {
  readonly name: string;
  readonly groups: readonly string[];
  readonly credentials: UserCredentials;
}

const SAFE_FILE_NAME = /[^A-Za-z0-9._-]/g;

/**
 * EnvironmentUser is a {@link TestUser}: it writes a kubeconfig with one context for the user into
 * the handle's users directory (mode 0600, removed with the plane), and hands out clientsets
 * memoized per options, which the handle closes in `close()`.
 */
export class EnvironmentUser implements TestUser {
  readonly name: string;
  readonly groups: readonly string[];
  readonly credentials: UserCredentials;
  readonly kubeconfigPath: string;
  readonly #context: EnvironmentContext;
  readonly #clientsets = new Map<string, Promise<Clientset>>();

  constructor(context: EnvironmentContext, parts: EnvironmentUserParts) {
    this.#context = context;
    this.name = parts.name;
    this.groups = parts.groups;
    this.credentials = parts.credentials;
    mkdirSync(context.usersDir, { recursive: true, mode: 0o700 });
    // A process-unique suffix: two handles (two test files) may make users of the same name.
    const fileName = `${parts.name.replace(SAFE_FILE_NAME, '_')}-${process.pid}-${sequence++}.kubeconfig`;
    this.kubeconfigPath = path.join(context.usersDir, fileName);
    writeFileSync(
      this.kubeconfigPath,
      renderKubeconfig({
        clusterName: 'k-envtest',
        server: context.state.server,
        caPem: context.state.caPem,
        users: [{ name: parts.name, ...parts.credentials }],
        currentContext: parts.name,
      }),
      { mode: 0o600 },
    );
  }

  clientset(options: TestUserClientsetOptions = {}): Promise<Clientset> {
    const key = JSON.stringify([options.userAgent ?? null, options.throttle ?? 'off']);
    let made = this.#clientsets.get(key);
    if (made === undefined) {
      made = inferClientset({
        kubeconfig: this.kubeconfigPath,
        inCluster: false,
        throttle: options.throttle ?? 'off',
        ...(options.userAgent !== undefined ? { transport: { userAgent: options.userAgent } } : {}),
      });
      this.#clientsets.set(key, made);
      this.#context.closeables.push({
        what: `a clientset of user ${this.name}`,
        close: async () => {
          this.#clientsets.delete(key);
          // A clientset that was never made has nothing to close (its caller saw why).
          await made!.then(
            (clientset) => clientset.close(),
            () => undefined,
          );
        },
      });
    }
    return made;
  }
}

let sequence = 0;
