/**
 * A custom auth plugin, through `createClientset` (and, with `--di`, through a DI container).
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
 * The plugin implements @k/transport's `CredentialProviderFactory` with `kind: 'env-token'`;
 * the transport selects it for that user beside the built-in plugins. By hand it goes in
 * `transport.credentialProviderFactories`; with DI it is registered under
 * `CREDENTIAL_PROVIDER_FACTORY` (the DI path needs `tsyringe` and `reflect-metadata` installed).
 * It prints who the server says you are:
 *
 *   MY_TOKEN=… npx tsx packages/clientset/examples/custom-auth-plugin.ts \
 *     --kubeconfig=path/to/kubeconfig [--context=name] [--di]
 */
import { loadKubeconfig, resolveConfig } from '@k/config';
import { createClientset, type Clientset } from '@k/clientset';
// A static import: it needs no tsyringe at run time (types only), and a CommonJS build keeps one
// copy of the packages (a dynamic import() would load their ESM build beside the required one).
import { CLIENTSET, CREDENTIAL_PROVIDER_FACTORY, registerClientset } from '@k/clientset/di';
import {
  TransportError,
  type CredentialProvider,
  type CredentialProviderContext,
  type CredentialProviderFactory,
  type Credentials,
} from '@k/transport';

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

/** envTokenPlugin is the plugin: its kind matches `auth-provider.name` in the kubeconfig. */
const envTokenPlugin: CredentialProviderFactory = {
  kind: 'env-token',
  create(context: CredentialProviderContext): CredentialProvider {
    const auth = context.config.auth;
    const variable = auth.kind === 'auth-provider' ? auth.config.get('variable') : undefined;
    if (!variable) {
      throw new TransportError('ERR_TRANSPORT_CREDENTIALS', 'env-token needs config.variable');
    }
    return new EnvironmentTokenProvider(variable);
  },
};

function option(name: string): string | undefined {
  const prefix = `--${name}=`;
  return process.argv.find((argument) => argument.startsWith(prefix))?.slice(prefix.length);
}

/** clientsetByDi wires the same plugin into an application's container instead. */
async function clientsetByDi(config: ReturnType<typeof resolveConfig>): Promise<Clientset> {
  await import('reflect-metadata'); // the application that chose tsyringe loads its polyfill
  const { container } = await import('tsyringe');
  const scope = container.createChildContainer(); // never the global container itself
  scope.register(CREDENTIAL_PROVIDER_FACTORY, { useValue: envTokenPlugin });
  return registerClientset(scope.createChildContainer(), { config }).resolve(CLIENTSET);
}

async function main(): Promise<void> {
  const kubeconfig = option('kubeconfig');
  const context = option('context');
  const loaded = await loadKubeconfig(kubeconfig ? { explicitPath: kubeconfig } : {});
  const config = resolveConfig(loaded, context ? { context } : {});
  const cs = process.argv.includes('--di')
    ? await clientsetByDi(config)
    : createClientset(config, { transport: { credentialProviderFactories: [envTokenPlugin] } });
  try {
    const review = await cs.authenticationV1.selfSubjectReviews().create({
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'SelfSubjectReview',
    });
    console.log(`authenticated as ${review.status?.userInfo?.username ?? ''}`);
  } finally {
    await cs.close();
  }
}

main().catch((error: unknown) => {
  console.error(`custom-auth-plugin: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
