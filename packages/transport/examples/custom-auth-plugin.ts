/**
 * A custom auth plugin, registered through DI.
 *
 * The kubeconfig user names the plugin in `auth-provider`:
 *
 *   users:
 *   - name: plugin-user
 *     user:
 *       auth-provider:
 *         name: env-token            # the plugin's kind
 *         config:
 *           variable: MY_TOKEN       # where this plugin finds the token
 *
 * The plugin implements `CredentialProviderFactory` with `kind: 'env-token'` and is registered
 * under `CREDENTIAL_PROVIDER_FACTORY` next to the built-in ones; the transport selects it for
 * that user. Run it against any cluster (it prints who the server says you are):
 *
 *   MY_TOKEN=… npx tsx --conditions=@k/source packages/transport/examples/custom-auth-plugin.ts \
 *     --kubeconfig=path/to/kubeconfig [--context=name]
 */
import 'reflect-metadata';
import { pathToFileURL } from 'node:url';
import { loadKubeconfig, resolveConfig } from '@k/config';
import { CREDENTIAL_PROVIDER_FACTORY, TRANSPORT, registerTransport } from '../src/di.js'; // in an application: from '@k/transport/di'
import {
  TransportError,
  type CredentialProvider,
  type CredentialProviderContext,
  type CredentialProviderFactory,
  type Credentials,
} from '../src/index.js'; // in an application: from '@k/transport'
import { container } from 'tsyringe';

/**
 * EnvironmentTokenProvider hands out `Bearer $<variable>`, read on every request so a rotated
 * variable (in a long-running process that updates its own environment) takes effect at once.
 */
class EnvironmentTokenProvider implements CredentialProvider {
  readonly kind = 'env-token';
  readonly #variable: string;

  constructor(variable: string) {
    this.#variable = variable;
  }

  getCredentials(): Promise<Credentials> {
    const token = process.env[this.#variable];
    if (!token) {
      // Name the variable, never its value.
      return Promise.reject(
        new TransportError('ERR_TRANSPORT_CREDENTIALS', `${this.#variable} is not set`),
      );
    }
    return Promise.resolve({ authorization: `Bearer ${token}` });
  }

  /** A 401 with this token will not get better by asking again. */
  invalidate(): boolean {
    return false;
  }
}

/** envTokenPluginFactory is the plugin: its kind matches `auth-provider.name` in the kubeconfig. */
export const envTokenPluginFactory: CredentialProviderFactory = {
  kind: 'env-token',
  create(context: CredentialProviderContext): CredentialProvider {
    const auth = context.config.auth;
    const variable = auth.kind === 'auth-provider' ? auth.config.get('variable') : undefined;
    if (!variable) throw new TypeError('the env-token plugin needs config.variable');
    return new EnvironmentTokenProvider(variable);
  },
};

/** main loads the kubeconfig, wires transport + plugin into a container and asks "who am I?". */
export async function main(argv: readonly string[]): Promise<string> {
  const option = (name: string) =>
    argv.find((argument) => argument.startsWith(`--${name}=`))?.slice(name.length + 3);
  const kubeconfig = option('kubeconfig');
  const loaded = await loadKubeconfig(kubeconfig ? { explicitPath: kubeconfig } : {});
  const context = option('context');
  const config = resolveConfig(loaded, context ? { context } : {});

  // An application's container (libraries never touch the global one; a child keeps it clean).
  const scope = container.createChildContainer();
  registerTransport(scope, { config, appName: 'custom-auth-plugin-example' });
  scope.register(CREDENTIAL_PROVIDER_FACTORY, { useValue: envTokenPluginFactory });

  const transport = scope.resolve(TRANSPORT);
  try {
    const response = await transport.request({
      method: 'POST',
      path: `${transport.server.basePath}/apis/authentication.k8s.io/v1/selfsubjectreviews`,
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }),
    });
    const review = (await response.body.json()) as {
      status?: { userInfo?: { username?: string } };
      message?: string;
    };
    if (response.statusCode !== 201) {
      throw new Error(`the server answered ${response.statusCode}: ${review.message ?? ''}`);
    }
    return review.status?.userInfo?.username ?? '';
  } finally {
    await transport.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).then(
    (username) => console.log(`authenticated as ${username}`),
    (error: unknown) => {
      console.error(`custom-auth-plugin: ${(error as Error).message}`);
      process.exitCode = 1;
    },
  );
}
