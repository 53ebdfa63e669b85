import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigInferenceError, KubeconfigError } from './errors.js';
import { inferConfig } from './infer-config.js';
import type { TempFiles } from './testing/temp-files.js';
import { createTempFiles } from './testing/temp-files.js';

let files: TempFiles;
beforeEach(() => {
  files = createTempFiles();
});
afterEach(() => files.cleanup());

const podEnv = { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' };

function inCluster() {
  return {
    tokenFile: files.path('sa/token'),
    caFile: files.path('sa/ca.crt'),
    namespaceFile: files.path('sa/ns'),
  };
}

describe('inferConfig', () => {
  it('uses the kubeconfig when it configures a cluster, even inside a pod', async () => {
    files.write('sa/token', 't');
    const kubeconfig = files.write(
      'config',
      'clusters: [{name: c, cluster: {server: "https://c"}}]\ncontexts: [{name: x, context: {cluster: c}}]\ncurrent-context: x\n',
    );
    const config = await inferConfig({
      env: { ...podEnv, KUBECONFIG: kubeconfig },
      inCluster: inCluster(),
    });
    expect(config.source).toBe('kubeconfig');
    expect(config.server).toBe('https://c');
  });

  it('falls back to in-cluster when the kubeconfig configures nothing, honouring overrides', async () => {
    files.write('sa/token', 'pod-token');
    const config = await inferConfig({
      env: { ...podEnv, HOME: files.root },
      inCluster: inCluster(),
      overrides: { namespace: 'ns/other', token: 'override-token' },
    });
    expect(config).toMatchObject({
      source: 'in-cluster',
      server: 'https://10.0.0.1:443',
      namespace: 'other',
      auth: { kind: 'token', token: 'override-token' },
    });
  });

  it('reads the environment of the options when inCluster passes env as undefined', async () => {
    files.write('sa/token', 'pod-token');
    const config = await inferConfig({
      env: { ...podEnv, HOME: files.root },
      inCluster: { ...inCluster(), env: undefined },
    });
    expect(config).toMatchObject({ source: 'in-cluster', server: 'https://10.0.0.1:443' });
  });

  it('does not hide a broken kubeconfig behind in-cluster', async () => {
    files.write('sa/token', 't');
    const kubeconfig = files.write('config', 'current-context: missing\n');
    const error = await inferConfig({
      env: { ...podEnv, KUBECONFIG: kubeconfig },
      inCluster: inCluster(),
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(KubeconfigError);
    expect((error as KubeconfigError).code).toBe('ERR_CONFIG_INVALID');
  });

  it('keeps both causes when neither source works', async () => {
    const error = (await inferConfig({ env: { HOME: files.root }, inCluster: inCluster() }).catch(
      (caught: unknown) => caught,
    )) as ConfigInferenceError;
    expect(error).toBeInstanceOf(ConfigInferenceError);
    expect(error.code).toBe('ERR_CONFIG_NOT_INFERRED');
    expect((error.kubeconfigError as KubeconfigError).code).toBe('ERR_CONFIG_EMPTY');
    expect((error.inClusterError as { code: string }).code).toBe('ERR_CONFIG_NOT_IN_CLUSTER');
    expect(error.message).toContain('kubeconfig:');
    expect(error.message).toContain('in-cluster:');
  });
});
