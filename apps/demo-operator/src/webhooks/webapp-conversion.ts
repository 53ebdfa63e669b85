import type { WebApp as WebAppV1alpha1 } from '../generated/web-app-v1alpha1.js';
import type { WebApp as WebAppV1beta1 } from '../generated/web-app-v1beta1.js';

/**
 * CONTAINER_FIELDS are the fields of a v1alpha1 spec that v1beta1 holds in `spec.container`;
 * every other field of the spec (replicas, paused) is the same in both versions.
 */
const CONTAINER_FIELDS = ['image', 'port', 'env', 'resources'] as const;

/** copyOwn copies `from`'s own fields whose key `select` accepts into `to` as own data fields (a `__proto__` key stays a field). */
function copyOwn(
  from: object,
  to: Record<string, unknown>,
  select: (key: string) => boolean,
): Record<string, unknown> {
  for (const [key, value] of Object.entries(from)) {
    if (!select(key)) continue;
    Object.defineProperty(to, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return to;
}

const isContainerField = (key: string) => (CONTAINER_FIELDS as readonly string[]).includes(key);

/**
 * toHub converts a v1alpha1 WebApp to v1beta1: the container's fields (image, port, env,
 * resources) move from `spec` into `spec.container`; the rest (metadata, status, replicas,
 * paused) stays as it is. Nothing is lost: {@link fromHub} gives back the same object. The input
 * is not changed; the result shares its unchanged parts.
 */
export function toHub(webapp: WebAppV1alpha1): WebAppV1beta1 {
  const spec = copyOwn(webapp.spec, {}, (key) => !isContainerField(key));
  spec['container'] = copyOwn(webapp.spec, {}, isContainerField);
  return copyOwn(
    webapp,
    { apiVersion: 'apps.k.example/v1beta1', spec },
    (key) => key !== 'apiVersion' && key !== 'spec',
  ) as unknown as WebAppV1beta1;
}

/**
 * fromHub converts a v1beta1 WebApp to v1alpha1: the fields of `spec.container` move up into
 * `spec`; the rest stays as it is. Nothing is lost ({@link toHub} gives back the same object):
 * v1alpha1 has a field for each of v1beta1's. The input is not changed.
 */
export function fromHub(webapp: WebAppV1beta1): WebAppV1alpha1 {
  const spec = copyOwn(webapp.spec, {}, (key) => key !== 'container');
  copyOwn(webapp.spec.container ?? {}, spec, () => true);
  return copyOwn(
    webapp,
    { apiVersion: 'apps.k.example/v1alpha1', spec },
    (key) => key !== 'apiVersion' && key !== 'spec',
  ) as unknown as WebAppV1alpha1;
}
