import type {
  MutatingWebhookConfiguration,
  ValidatingWebhookConfiguration,
  WebhookClientConfig as AdmissionClientConfig,
} from '@k/clientset/admissionregistration/v1';
import type {
  CustomResourceDefinition,
  WebhookClientConfig as ConversionClientConfig,
} from '@k/clientset/apiextensions/v1';

/**
 * WebhookEndpoint is what a rewrite needs of a {@link WebhookServing}: the loopback port the
 * server listens on and the base64 CA bundle its certificate verifies against.
 */
export interface WebhookEndpoint {
  readonly port: number;
  readonly caBundle: string;
}

/** DEFAULT_CONVERSION_PATH is where a conversion webhook is called without a path (kubebuilder's `/convert`). */
const DEFAULT_CONVERSION_PATH = '/convert';

/** CONVERSION_REVIEW_VERSIONS are set on a rewritten CRD that names none (controller-runtime's choice). */
const CONVERSION_REVIEW_VERSIONS: readonly string[] = ['v1', 'v1beta1'];

/**
 * webhookUrl is `https://127.0.0.1:<port>/<path>`: the path gets exactly one leading slash (a
 * kubebuilder service path `/validate-x` and a bare `validate-x` give the same URL).
 */
export function webhookUrl(port: number, path: string): string {
  if (!Number.isInteger(port) || port < 1 || port > 65_535)
    throw new RangeError(`webhook port ${port} is not a TCP port`);
  return `https://127.0.0.1:${port}/${path.replace(/^\/+/, '')}`;
}

/**
 * rewriteClientConfig points one webhook clientConfig at the local server. A `service` reference
 * (kube-apiserver here has no kube-proxy, and Endpoints refuse loopback) becomes
 * `url: https://127.0.0.1:<port>/<service path>` (the root when the service names no path, as
 * kube-apiserver calls a service); a `url` stays as written. Either way `caBundle` becomes the
 * endpoint's. Returns a new object.
 */
export function rewriteClientConfig<Config extends AdmissionClientConfig | ConversionClientConfig>(
  clientConfig: Config,
  endpoint: WebhookEndpoint,
  options: { readonly port?: number | undefined; readonly path?: string | undefined } = {},
): Config {
  const { service, ...rest } = clientConfig;
  const port = options.port ?? endpoint.port;
  if (options.path !== undefined)
    return { ...rest, url: webhookUrl(port, options.path), caBundle: endpoint.caBundle } as Config;
  if (service)
    return {
      ...rest,
      url: webhookUrl(port, service.path ?? '/'),
      caBundle: endpoint.caBundle,
    } as Config;
  return { ...clientConfig, caBundle: endpoint.caBundle };
}

/**
 * rewriteWebhookConfiguration rewrites the clientConfig of every webhook of a
 * Validating- or MutatingWebhookConfiguration with {@link rewriteClientConfig} (as
 * controller-runtime's envtest `updateClientConfig`), `port` defaulting to the endpoint's. Pure:
 * returns a new object and leaves the argument as it was.
 */
export function rewriteWebhookConfiguration<
  Configuration extends ValidatingWebhookConfiguration | MutatingWebhookConfiguration,
>(
  configuration: Configuration,
  endpoint: WebhookEndpoint,
  options: { readonly port?: number | undefined } = {},
): Configuration {
  if (!configuration.webhooks) return configuration;
  return {
    ...configuration,
    webhooks: configuration.webhooks.map((webhook) => ({
      ...webhook,
      clientConfig: rewriteClientConfig(webhook.clientConfig, endpoint, { port: options.port }),
    })),
  };
}

/** RewriteCrdConversionOptions say which CRDs {@link rewriteCrdConversion} rewrites, and where to. */
export interface RewriteCrdConversionOptions {
  /**
   * The server path of the conversion webhook. Default: the CRD's service path when it has one,
   * else {@link DEFAULT_CONVERSION_PATH}; a CRD that already has a `url` keeps it unless a path is given.
   */
  readonly path?: string | undefined;
  /**
   * Also give conversion strategy Webhook to CRDs with `None` (or no conversion), as
   * controller-runtime does for every convertible CRD; only CRDs with two versions or more.
   */
  readonly all?: boolean | undefined;
  /** The port the server really bound (default the endpoint's). */
  readonly port?: number | undefined;
}

/**
 * rewriteCrdConversion points a CRD's conversion webhook at the local server: a CRD whose
 * `spec.conversion.strategy` is `Webhook` (with `all`, also a `None` one that serves two versions
 * or more) gets `webhook.clientConfig` from {@link rewriteClientConfig} and
 * `conversionReviewVersions` ({@link CONVERSION_REVIEW_VERSIONS} when it names none). A CRD with
 * `preserveUnknownFields: true` is left alone (apiextensions.k8s.io/v1 forbids webhook conversion
 * for it), and so is every other CRD. Pure: returns the argument itself when nothing changes, a new
 * object otherwise.
 */
export function rewriteCrdConversion<Crd extends CustomResourceDefinition>(
  crd: Crd,
  endpoint: WebhookEndpoint,
  options: RewriteCrdConversionOptions = {},
): Crd {
  const spec = crd.spec;
  if (spec.preserveUnknownFields === true) return crd;
  const conversion = spec.conversion;
  const isWebhook = conversion?.strategy === 'Webhook';
  if (!isWebhook && !(options.all === true && spec.versions.length >= 2)) return crd;
  const webhook = isWebhook ? conversion.webhook : undefined;
  const existing: ConversionClientConfig = webhook?.clientConfig ?? {};
  const path =
    options.path ??
    (existing.url === undefined ? (existing.service?.path ?? DEFAULT_CONVERSION_PATH) : undefined);
  const reviewVersions = webhook?.conversionReviewVersions ?? [];
  return {
    ...crd,
    spec: {
      ...spec,
      conversion: {
        ...(isWebhook ? conversion : {}),
        strategy: 'Webhook',
        webhook: {
          ...webhook,
          clientConfig: rewriteClientConfig(existing, endpoint, { path, port: options.port }),
          conversionReviewVersions:
            reviewVersions.length > 0 ? reviewVersions : [...CONVERSION_REVIEW_VERSIONS],
        },
      },
    },
  };
}
