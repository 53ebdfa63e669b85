import { describe, expect, it } from 'vitest';
import type { WebApp } from '../generated/web-app-v1beta1.js';
import { CONFIG_HASH_ANNOTATION } from '../names.js';
import { desiredDeployment, desiredService } from './desired-state.js';

const webapp: WebApp = {
  apiVersion: 'apps.k.example/v1beta1',
  kind: 'WebApp',
  metadata: { name: 'hello', namespace: 'shop', uid: 'uid-1', generation: 3 },
  spec: {
    container: {
      image: 'nginx:1.27',
      port: 8080,
      env: [{ name: 'GREETING', value: 'hi' }, { name: 'EMPTY' }],
      resources: { requests: { cpu: '100m', memory: 1024 } },
    },
    replicas: 3,
  },
};

describe('desiredDeployment', () => {
  it('runs the image with the replicas, port, env and resources, owned by the WebApp', () => {
    const deployment = desiredDeployment(webapp);
    expect(deployment.metadata).toMatchObject({
      name: 'hello',
      namespace: 'shop',
      labels: {
        'app.kubernetes.io/managed-by': 'demo-operator',
        'app.kubernetes.io/instance': 'hello',
      },
      ownerReferences: [
        {
          apiVersion: 'apps.k.example/v1beta1',
          kind: 'WebApp',
          name: 'hello',
          uid: 'uid-1',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    });
    expect(deployment.spec?.replicas).toBe(3);
    expect(deployment.spec?.selector?.matchLabels).toEqual({
      'app.kubernetes.io/name': 'webapp',
      'app.kubernetes.io/instance': 'hello',
    });
    expect(deployment.spec?.template?.spec?.containers).toEqual([
      {
        name: 'web',
        image: 'nginx:1.27',
        ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
        env: [{ name: 'GREETING', value: 'hi' }, { name: 'EMPTY' }],
        resources: { requests: { cpu: '100m', memory: '1024' } },
      },
    ]);
  });

  it('uses the CRD defaults for an object read before defaulting', () => {
    const bare = desiredDeployment({ ...webapp, spec: { container: { image: 'nginx' } } });
    expect(bare.spec?.replicas).toBe(1);
    expect(bare.spec?.template?.spec?.containers?.[0]?.ports?.[0]?.containerPort).toBe(8080);
    expect(bare.spec?.template?.spec?.containers?.[0]).not.toHaveProperty('env');
  });

  it('changes its hash when any field changes, also when one is removed, and not otherwise', () => {
    const hash = (object: { metadata: { annotations?: Record<string, string | undefined> } }) =>
      object.metadata.annotations?.[CONFIG_HASH_ANNOTATION];
    const first = hash(desiredDeployment(webapp));
    expect(first).toMatch(/^[0-9a-f]{16}$/);
    expect(hash(desiredDeployment(structuredClone(webapp)))).toBe(first);
    expect(
      hash(
        desiredDeployment({
          ...webapp,
          spec: { ...webapp.spec, container: { ...webapp.spec.container, env: [] } },
        }),
      ),
    ).not.toBe(first);
    expect(hash(desiredDeployment({ ...webapp, spec: { ...webapp.spec, replicas: 4 } }))).not.toBe(
      first,
    );
  });
});

describe('desiredService', () => {
  it('sends port 80 to the Pods’ http port, selecting exactly the WebApp’s Pods', () => {
    const service = desiredService(webapp);
    expect(service.spec).toEqual({
      type: 'ClusterIP',
      selector: { 'app.kubernetes.io/name': 'webapp', 'app.kubernetes.io/instance': 'hello' },
      ports: [{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' }],
    });
    expect(service.metadata.ownerReferences?.[0]?.uid).toBe('uid-1');
  });
});
