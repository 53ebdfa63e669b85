import { mkdirSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InClusterConfigError, KubeError } from '../errors.js';
import type { TempFiles } from '../testing/temp-files.js';
import { createTempFiles } from '../testing/temp-files.js';
import {
  isInClusterPossible,
  joinHostPort,
  loadInClusterConfig,
} from './load-in-cluster-config.js';

const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

let files: TempFiles;
beforeEach(() => {
  files = createTempFiles();
});
afterEach(() => files.cleanup());

function paths() {
  return {
    tokenFile: files.path('sa/token'),
    caFile: files.path('sa/ca.crt'),
    namespaceFile: files.path('sa/namespace'),
  };
}

describe('loadInClusterConfig', () => {
  it('builds the server URL, token file, CA and namespace of a pod', async () => {
    files.write('sa/token', 'pod-token\n');
    files.write('sa/ca.crt', PEM);
    files.write('sa/namespace', ' team-a \n');
    const config = await loadInClusterConfig({
      ...paths(),
      env: { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' },
    });
    expect(config).toMatchObject({
      server: 'https://10.0.0.1:443',
      namespace: 'team-a',
      namespaceExplicit: true,
      auth: { kind: 'token', token: 'pod-token\n', tokenFile: paths().tokenFile },
      tls: { caFile: paths().caFile, insecure: false },
      source: 'in-cluster',
    });
  });

  it('brackets an IPv6 service host (client-go B6)', async () => {
    files.write('sa/token', 't');
    const config = await loadInClusterConfig({
      ...paths(),
      env: { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' },
    });
    expect(config.server).toBe('https://[fd00::1]:443');
    expect(joinHostPort('example.com', '6443')).toBe('example.com:6443');
  });

  it('ignores a CA file that holds no PEM certificate and prefers POD_NAMESPACE', async () => {
    files.write('sa/token', 't');
    files.write('sa/ca.crt', 'not a certificate');
    files.write('sa/namespace', 'from-file');
    const config = await loadInClusterConfig({
      ...paths(),
      env: {
        KUBERNETES_SERVICE_HOST: 'h',
        KUBERNETES_SERVICE_PORT: '1',
        POD_NAMESPACE: 'from-env',
      },
    });
    expect(config.tls.caFile).toBeUndefined();
    expect(config.namespace).toBe('from-env');
  });

  it('defaults the namespace when no file or variable gives one', async () => {
    files.write('sa/token', 't');
    const config = await loadInClusterConfig({
      ...paths(),
      env: { KUBERNETES_SERVICE_HOST: 'h', KUBERNETES_SERVICE_PORT: '1' },
    });
    expect(config.namespace).toBe('default');
    expect(config.namespaceExplicit).toBe(false);
  });

  it('fails with ERR_CONFIG_NOT_IN_CLUSTER outside a pod', async () => {
    const error = await loadInClusterConfig({
      ...paths(),
      env: { KUBERNETES_SERVICE_HOST: 'h' },
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InClusterConfigError);
    expect(KubeError.isInstance(error) && error.code).toBe('ERR_CONFIG_NOT_IN_CLUSTER');
  });

  it('fails with ERR_CONFIG_IN_CLUSTER_TOKEN naming the token path when it cannot be read', async () => {
    const error = (await loadInClusterConfig({
      ...paths(),
      env: { KUBERNETES_SERVICE_HOST: 'h', KUBERNETES_SERVICE_PORT: '1' },
    }).catch((caught: unknown) => caught)) as InClusterConfigError;
    expect(error.code).toBe('ERR_CONFIG_IN_CLUSTER_TOKEN');
    expect(error.message).toContain(paths().tokenFile);
  });
});

describe('isInClusterPossible', () => {
  it('needs both variables and a token file that is not a directory', async () => {
    const env = { KUBERNETES_SERVICE_HOST: 'h', KUBERNETES_SERVICE_PORT: '1' };
    expect(await isInClusterPossible({ ...paths(), env })).toBe(false);
    mkdirSync(paths().tokenFile, { recursive: true });
    expect(await isInClusterPossible({ ...paths(), env })).toBe(false);
    files.cleanup();
    files = createTempFiles();
    files.write('sa/token', 't');
    expect(await isInClusterPossible({ ...paths(), env })).toBe(true);
    expect(await isInClusterPossible({ ...paths(), env: { KUBERNETES_SERVICE_HOST: 'h' } })).toBe(
      false,
    );
  });
});
