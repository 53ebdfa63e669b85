import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseManifests, type UnstructuredObject } from '@k/clientset';
import type { Deployment } from '@k/clientset/apps/v1';
import type { Service } from '@k/clientset/core/v1';
import { describe, expect, it } from 'vitest';

const read = async (file: string) =>
  parseManifests(readFileSync(path.join(import.meta.dirname, file), 'utf8'));

interface CertificateSpec {
  secretName: string;
  dnsNames: string[];
  issuerRef: { kind: string; name: string };
}

/** one is the only object of `kind` among `objects`. */
function one<T>(objects: UnstructuredObject[], kind: string): T {
  const found = objects.filter((object) => object.kind === kind);
  expect(found, kind).toHaveLength(1);
  return found[0] as unknown as T;
}

// cert-manager does not run in the tests: these check that the manifests fit one another.
describe('the webhook manifests of deploy/', () => {
  it('give the webhook Service a cert-manager certificate for its DNS names, in the Secret the Deployment mounts', async () => {
    const certificates = await read('certificate.yaml');
    const service = one<Service>(await read('webhook-service.yaml'), 'Service');
    const deployment = one<Deployment>(await read('deployment.yaml'), 'Deployment');
    const certificate = one<UnstructuredObject & { spec: CertificateSpec }>(
      certificates,
      'Certificate',
    );
    const issuer = one<UnstructuredObject>(certificates, 'Issuer');
    const { name, namespace } = service.metadata!;
    expect(certificate.metadata?.namespace).toBe(namespace);
    expect(certificate.spec.dnsNames).toEqual([
      `${name}.${namespace}.svc`,
      `${name}.${namespace}.svc.cluster.local`,
    ]);
    expect(certificate.spec.issuerRef).toEqual({ kind: 'Issuer', name: issuer.metadata?.name });
    expect(issuer.metadata?.namespace).toBe(namespace);

    const pod = deployment.spec.template.spec!;
    const volume = pod.volumes?.find((candidate) => candidate.secret);
    expect(volume?.secret?.secretName).toBe(certificate.spec.secretName);
    expect(pod.containers[0]?.volumeMounts).toContainEqual({
      name: volume?.name,
      mountPath: '/tmp/k8s-webhook-server/serving-certs',
      readOnly: true,
    });
    // Readable by the operator's user (a non-root one): the files are its group's.
    expect(pod.securityContext?.fsGroup).toBe(pod.securityContext?.runAsUser);
  });

  it('send the Service’s port 443 to the operator Pods’ webhook port, 9443', async () => {
    const service = one<Service>(await read('webhook-service.yaml'), 'Service');
    const deployment = one<Deployment>(await read('deployment.yaml'), 'Deployment');
    expect(service.metadata?.namespace).toBe(deployment.metadata?.namespace);
    expect(service.spec?.selector).toEqual(deployment.spec.selector.matchLabels);
    const [port] = service.spec?.ports ?? [];
    expect(port?.port).toBe(443);
    expect(deployment.spec.template.spec?.containers[0]?.ports).toContainEqual({
      name: port?.targetPort,
      containerPort: 9443,
      protocol: 'TCP',
    });
  });
});
