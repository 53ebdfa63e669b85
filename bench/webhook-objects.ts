/**
 * The objects of the webhooks benchmark, shared by the parent (webhooks.bench.ts) and the server
 * child (webhook-server-child.ts): a Deployment-sized AdmissionReview, WebApps in two versions and
 * their hub-and-spoke converters.
 */

/** BENCH_GROUP is the API group of the benchmark's WebApp CRDs (`<server>.<BENCH_GROUP>`). */
export const BENCH_GROUP = 'webhooks.bench.k.io';

/** VALIDATE_PATH and MUTATE_PATH are controller-runtime's paths for ConfigMaps (core group). */
export const VALIDATE_PATH = '/validate--v1-configmap';
export const MUTATE_PATH = '/mutate--v1-configmap';
/** DEPLOYMENT_PATH is the validating path the direct requests-per-second workload calls. */
export const DEPLOYMENT_PATH = '/validate-apps-v1-deployment';

/** deployment is a Deployment as a real cluster stores it (~4 KB of JSON with its managedFields). */
export function deployment(index: number): Record<string, unknown> {
  const labels = {
    'app.kubernetes.io/name': 'checkout',
    'app.kubernetes.io/instance': `checkout-${index}`,
    'app.kubernetes.io/version': '2.14.3',
    'app.kubernetes.io/component': 'api',
    'app.kubernetes.io/part-of': 'shop',
    'app.kubernetes.io/managed-by': 'helm',
  };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: `checkout-${index}`,
      namespace: 'shop',
      labels,
      annotations: {
        'deployment.kubernetes.io/revision': '7',
        'meta.helm.sh/release-name': 'checkout',
        'meta.helm.sh/release-namespace': 'shop',
      },
      managedFields: [
        {
          manager: 'helm',
          operation: 'Update',
          apiVersion: 'apps/v1',
          time: '2026-12-01T10:00:00Z',
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:metadata': {
              'f:labels': Object.fromEntries(Object.keys(labels).map((key) => [`f:${key}`, {}])),
            },
            'f:spec': {
              'f:replicas': {},
              'f:selector': {},
              'f:template': { 'f:spec': { 'f:containers': {} } },
            },
          },
        },
      ],
    },
    spec: {
      replicas: 3,
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
      selector: {
        matchLabels: {
          'app.kubernetes.io/name': 'checkout',
          'app.kubernetes.io/instance': `checkout-${index}`,
        },
      },
      strategy: {
        type: 'RollingUpdate',
        rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' },
      },
      template: {
        metadata: {
          labels,
          annotations: { 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9090' },
        },
        spec: {
          serviceAccountName: 'checkout',
          terminationGracePeriodSeconds: 30,
          securityContext: {
            runAsNonRoot: true,
            runAsUser: 10001,
            fsGroup: 10001,
            seccompProfile: { type: 'RuntimeDefault' },
          },
          containers: [
            {
              name: 'api',
              image:
                'registry.example/shop/checkout:2.14.3@sha256:4f7a1c1b2e0e6d9f3a8b5c7d9e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f',
              imagePullPolicy: 'IfNotPresent',
              args: ['--listen=:8080', '--metrics=:9090', '--log-format=json'],
              ports: [
                { name: 'http', containerPort: 8080, protocol: 'TCP' },
                { name: 'metrics', containerPort: 9090, protocol: 'TCP' },
              ],
              env: Array.from({ length: 12 }, (_, each) => ({
                name: `CHECKOUT_SETTING_${each}`,
                value: `value-of-setting-number-${each}-for-the-checkout-service`,
              })),
              resources: {
                requests: { cpu: '250m', memory: '256Mi' },
                limits: { cpu: '1', memory: '512Mi' },
              },
              readinessProbe: {
                httpGet: { path: '/readyz', port: 'http' },
                periodSeconds: 5,
                failureThreshold: 3,
              },
              livenessProbe: {
                httpGet: { path: '/healthz', port: 'http' },
                periodSeconds: 10,
                failureThreshold: 6,
              },
              securityContext: {
                allowPrivilegeEscalation: false,
                readOnlyRootFilesystem: true,
                capabilities: { drop: ['ALL'] },
              },
              volumeMounts: [
                { name: 'config', mountPath: '/etc/checkout', readOnly: true },
                { name: 'tmp', mountPath: '/tmp' },
              ],
            },
          ],
          volumes: [
            { name: 'config', configMap: { name: 'checkout-config' } },
            { name: 'tmp', emptyDir: {} },
          ],
        },
      },
    },
    status: {},
  };
}

/** admissionReview is the body kube-apiserver sends for a CREATE of `object`. */
export function admissionReview(object: Record<string, unknown>, uid: string): string {
  return JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid,
      kind: { group: 'apps', version: 'v1', kind: 'Deployment' },
      resource: { group: 'apps', version: 'v1', resource: 'deployments' },
      requestKind: { group: 'apps', version: 'v1', kind: 'Deployment' },
      requestResource: { group: 'apps', version: 'v1', resource: 'deployments' },
      name: (object['metadata'] as { name: string }).name,
      namespace: 'shop',
      operation: 'CREATE',
      userInfo: {
        username: 'system:serviceaccount:shop:deployer',
        uid: '7c1d',
        groups: ['system:serviceaccounts', 'system:authenticated'],
      },
      object,
      oldObject: null,
      dryRun: false,
      options: { apiVersion: 'meta.k8s.io/v1', kind: 'CreateOptions', fieldManager: 'helm' },
    },
  });
}

/** WebAppSpoke is a v1alpha1 WebApp: the container's fields flat in `spec`. */
export interface WebAppSpoke {
  apiVersion: string;
  kind: 'WebApp';
  metadata: Record<string, unknown>;
  spec: Record<string, unknown>;
  status?: Record<string, unknown>;
}

/** WebAppHub is a v1beta1 WebApp (the hub and storage version): the container in `spec.container`. */
export interface WebAppHub {
  apiVersion: string;
  kind: 'WebApp';
  metadata: Record<string, unknown>;
  spec: Record<string, unknown> & { container?: Record<string, unknown> };
  status?: Record<string, unknown>;
}

const CONTAINER_FIELDS = new Set(['image', 'port', 'env', 'resources']);

/** webAppHub is a v1beta1 WebApp of `group` (~1 KB of JSON), the shape the demo operator's has. */
export function webAppHub(group: string, namespace: string, index: number): WebAppHub {
  return {
    apiVersion: `${group}/v1beta1`,
    kind: 'WebApp',
    metadata: {
      name: `webapp-${index}`,
      namespace,
      labels: { 'app.kubernetes.io/name': `webapp-${index}`, team: `team-${index % 7}` },
      annotations: { 'bench.k.io/owner': `owner-${index % 13}@example.com` },
    },
    spec: {
      replicas: 1 + (index % 3),
      paused: false,
      container: {
        image: `registry.example/team-${index % 7}/webapp:1.${index % 20}.0`,
        port: 8080,
        env: [
          { name: 'LOG_LEVEL', value: 'info' },
          { name: 'FEATURE_FLAGS', value: 'checkout,search,recommendations' },
          { name: 'UPSTREAM', value: `http://backend-${index % 5}.shop.svc:8080` },
        ],
        resources: {
          requests: { cpu: '100m', memory: '128Mi' },
          limits: { cpu: '500m', memory: '256Mi' },
        },
      },
    },
  };
}

/** webAppToHub moves the container's fields of a v1alpha1 WebApp into `spec.container`. */
export function webAppToHub(spoke: WebAppSpoke, hubApiVersion: string): WebAppHub {
  const spec: Record<string, unknown> = {};
  const container: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(spoke.spec ?? {})) {
    if (CONTAINER_FIELDS.has(key)) container[key] = value;
    else spec[key] = value;
  }
  return { ...spoke, apiVersion: hubApiVersion, spec: { ...spec, container } };
}

/** webAppFromHub moves `spec.container`'s fields of a v1beta1 WebApp up into `spec`. */
export function webAppFromHub(hub: WebAppHub, spokeApiVersion: string): WebAppSpoke {
  const { container, ...spec } = hub.spec ?? {};
  return { ...hub, apiVersion: spokeApiVersion, spec: { ...spec, ...container } };
}

/** conversionReview asks for `objects` in `desiredAPIVersion`. */
export function conversionReview(objects: readonly unknown[], desiredAPIVersion: string): string {
  return JSON.stringify({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'ConversionReview',
    request: { uid: '705ab4f5-6393-11e8-b7cc-42010a800002', desiredAPIVersion, objects },
  });
}
