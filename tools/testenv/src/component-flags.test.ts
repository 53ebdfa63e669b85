import { describe, expect, it } from 'vitest';
import {
  apiServerFlags,
  controllerManagerFlags,
  etcdFlags,
  schedulerFlags,
} from './component-flags.js';
import type { Pki } from './pki.js';

const ports = {
  etcd: 2379,
  etcdPeer: 2380,
  apiServer: 6443,
  controllerManager: 10257,
  scheduler: 10259,
  kubelet: 10250,
};
const pki = new Proxy({} as Pki, { get: (_target, key) => `/run/pki/${String(key)}` });

/** The value of `--name=value` (the last one wins, as in the components' flag parsing). */
function flag(flags: readonly string[], name: string): string | undefined {
  return flags
    .filter((entry) => entry.startsWith(`--${name}=`))
    .at(-1)
    ?.slice(name.length + 3);
}

const every = () => [
  etcdFlags('/run', ports),
  apiServerFlags({
    runDir: '/run',
    ports,
    pki,
    tokenFilePath: '/run/tokens.csv',
    controllerManager: true,
    auditPolicyPath: '/run/audit-policy.yaml',
    auditLogPath: '/run/audit.log',
  }),
  controllerManagerFlags('/run', ports, pki, '/run/kubeconfig'),
  schedulerFlags('/run', ports, '/run/kubeconfig'),
];

describe('component flags', () => {
  it('bind and advertise every listener on 127.0.0.1 only', () => {
    const [etcd, apiServer, controllerManager, scheduler] = every();
    for (const name of [
      'listen-client-urls',
      'advertise-client-urls',
      'listen-peer-urls',
      'initial-advertise-peer-urls',
    ]) {
      expect(flag(etcd!, name), name).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    }
    expect(flag(etcd!, 'initial-cluster')).toBe('k-testenv=http://127.0.0.1:2380');
    expect(flag(apiServer!, 'bind-address')).toBe('127.0.0.1');
    expect(flag(apiServer!, 'advertise-address')).toBe('127.0.0.1');
    expect(flag(apiServer!, 'endpoint-reconciler-type')).toBe('none');
    expect(flag(controllerManager!, 'bind-address')).toBe('127.0.0.1');
    expect(flag(controllerManager!, 'secure-port')).toBe('10257');
    expect(flag(scheduler!, 'bind-address')).toBe('127.0.0.1');
    expect(flag(scheduler!, 'secure-port')).toBe('10259');
  });

  it('keep state and generated certificates inside the run dir', () => {
    for (const flags of every()) {
      for (const entry of flags.filter((value) => /-dir=/.test(value)))
        expect(entry).toMatch(/=\/run\//);
    }
  });

  it('wire the apiserver to etcd, the test CA, the token file and RBAC', () => {
    const flags = every()[1]!;
    expect(flag(flags, 'etcd-servers')).toBe('http://127.0.0.1:2379');
    expect(flag(flags, 'secure-port')).toBe('6443');
    expect(flag(flags, 'client-ca-file')).toBe('/run/pki/caCertPath');
    expect(flag(flags, 'token-auth-file')).toBe('/run/tokens.csv');
    expect(flag(flags, 'authorization-mode')).toBe('RBAC');
    expect(flag(flags, 'requestheader-client-ca-file')).toBe('/run/pki/frontProxyCaCertPath');
    expect(flag(flags, 'service-account-signing-key-file')).toBe('/run/pki/serviceAccountKeyPath');
    expect(flag(flags, 'audit-log-path')).toBe('/run/audit.log');
    expect(flag(flags, 'audit-log-mode')).toBe('blocking');
  });

  it('give Services a /16 of ClusterIPs, the same range to the apiserver and the controller-manager', () => {
    const [, apiServer, controllerManager] = every();
    const range = flag(apiServer!, 'service-cluster-ip-range');
    expect(range).toBe('10.0.0.0/16');
    expect(flag(controllerManager!, 'service-cluster-ip-range')).toBe(range);
    // Hundreds of Services from one suite (the demo operator's 200) leave room for the others.
    expect(2 ** (32 - Number(range!.split('/')[1])) - 2).toBeGreaterThan(60_000);
  });

  it('enable garbage collection and ServiceAccount admission only with a controller-manager', () => {
    const base = {
      runDir: '/run',
      ports,
      pki,
      tokenFilePath: '/run/tokens.csv',
      auditPolicyPath: '/run/audit-policy.yaml',
      auditLogPath: '/run/audit.log',
    };
    const withManager = apiServerFlags({ ...base, controllerManager: true });
    const without = apiServerFlags({ ...base, controllerManager: false });
    expect(flag(withManager, 'enable-garbage-collector')).toBe('true');
    expect(flag(withManager, 'disable-admission-plugins')).toBeUndefined();
    expect(flag(without, 'enable-garbage-collector')).toBe('false');
    expect(flag(without, 'disable-admission-plugins')).toBe('ServiceAccount');
  });

  it('run the controller-manager as admin without leader election, with the signing material', () => {
    const flags = every()[2]!;
    expect(flag(flags, 'kubeconfig')).toBe('/run/kubeconfig');
    expect(flag(flags, 'leader-elect')).toBe('false');
    expect(flag(flags, 'service-account-private-key-file')).toBe('/run/pki/serviceAccountKeyPath');
    expect(flag(flags, 'root-ca-file')).toBe('/run/pki/caCertPath');
    expect(flag(flags, 'controllers')).toBe('*');
  });

  it('run the scheduler as admin without leader election', () => {
    const flags = every()[3]!;
    expect(flag(flags, 'kubeconfig')).toBe('/run/kubeconfig');
    expect(flag(flags, 'authentication-kubeconfig')).toBe('/run/kubeconfig');
    expect(flag(flags, 'leader-elect')).toBe('false');
  });

  it('append extra flags last, so they override the defaults', () => {
    const flags = apiServerFlags({
      runDir: '/run',
      ports,
      pki,
      tokenFilePath: '/run/tokens.csv',
      controllerManager: true,
      auditPolicyPath: '/run/audit-policy.yaml',
      auditLogPath: '/run/audit.log',
      extra: ['--authorization-mode=AlwaysAllow', '--max-requests-inflight=1'],
    });
    expect(flags.slice(-2)).toEqual([
      '--authorization-mode=AlwaysAllow',
      '--max-requests-inflight=1',
    ]);
    expect(flag(flags, 'authorization-mode')).toBe('AlwaysAllow');
    expect(etcdFlags('/run', ports, ['--log-level=debug']).at(-1)).toBe('--log-level=debug');
    expect(controllerManagerFlags('/run', ports, pki, '/k', ['--v=4']).at(-1)).toBe('--v=4');
    // A later flag wins, so the tuned client limits can still be overridden.
    expect(controllerManagerFlags('/run', ports, pki, '/k', ['--kube-api-qps=5']).at(-1)).toBe(
      '--kube-api-qps=5',
    );
    expect(schedulerFlags('/run', ports, '/k', ['--v=4']).at(-1)).toBe('--v=4');
  });

  it('lets kube-controller-manager talk to kube-apiserver unthrottled (namespace deletion)', () => {
    const flags = controllerManagerFlags('/run', ports, pki, '/run/kubeconfig');
    expect(flags).toContain('--kube-api-qps=1000');
    expect(flags).toContain('--kube-api-burst=2000');
  });
});
