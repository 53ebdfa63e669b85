import { KubeError } from '@k/config/errors';
import { describe, expect, it } from 'vitest';
import { OperatorError } from './errors.js';
import { parseOperatorFlags } from './operator-flags.js';

describe('parseOperatorFlags', () => {
  it('has controller-runtime’s defaults and reads every flag in both spellings', () => {
    const defaults = parseOperatorFlags([], { POD_NAMESPACE: 'ops', POD_NAME: 'op-0' })!;
    expect(defaults).toMatchObject({
      qps: 20,
      burst: 30,
      logLevel: 'info',
      settings: {
        watchNamespace: '',
        operatorNamespace: 'ops',
        leaderElection: true,
        maxConcurrentReconciles: 4,
        probes: { port: 8081 },
        metricsServer: { host: '127.0.0.1', port: 8080 },
        webhookServer: false,
        webhookCertDir: '/tmp/k8s-webhook-server/serving-certs',
      },
    });
    expect(defaults.settings.identity).toMatch(/^op-0-[0-9a-f]{6}$/);
    const flags = parseOperatorFlags(
      [
        '--kubeconfig',
        '/tmp/kc',
        '--context=admin',
        '--qps=50',
        '--burst',
        '100',
        '--namespace=web',
        '--operator-namespace=ops2',
        '--leader-elect=false',
        '--identity=me',
        '--max-concurrent-reconciles=8',
        '--leader-elect-lease-duration=3s',
        '--leader-elect-renew-deadline=2s',
        '--leader-elect-retry-period=500ms',
        '--health-probe-bind-address=127.0.0.1:0',
        '--metrics-bind-address=:9090',
        '--webhook-bind-address=:9443',
        '--webhook-cert-dir=/certs',
        '--log-level=debug',
      ],
      {},
    )!;
    expect(flags).toMatchObject({
      kubeconfig: '/tmp/kc',
      context: 'admin',
      qps: 50,
      burst: 100,
      logLevel: 'debug',
      settings: {
        watchNamespace: 'web',
        operatorNamespace: 'ops2',
        leaderElection: false,
        identity: 'me',
        maxConcurrentReconciles: 8,
        leaseDurationMs: 3000,
        renewDeadlineMs: 2000,
        retryPeriodMs: 500,
        probes: { host: '127.0.0.1', port: 0 },
        webhookServer: { port: 9443 },
        webhookCertDir: '/certs',
        metricsServer: { port: 9090 },
      },
    });
    expect(parseOperatorFlags(['--help'])).toBeUndefined();
    expect(parseOperatorFlags(['--health-probe-bind-address=off'], {})!.settings.probes).toBe(
      false,
    );
    expect(parseOperatorFlags(['--metrics-bind-address=off'], {})!.settings.metricsServer).toBe(
      false,
    );
    expect(
      parseOperatorFlags(['--metrics-bind-address=[::1]:9090'], {})!.settings.metricsServer,
    ).toEqual({ host: '::1', port: 9090 });
  });

  it.each([
    [['--qps=0'], /--qps needs a positive number/],
    [['--burst=1.5'], /--burst needs a positive integer/],
    [['--leader-elect=yes'], /--leader-elect needs true or false/],
    [['--leader-elect-lease-duration=15'], /needs a duration/],
    [['--health-probe-bind-address=8081'], /--health-probe-bind-address needs host:port/],
    [['--metrics-bind-address=:70000'], /--metrics-bind-address needs host:port/],
    [['--log-level=loud'], /--log-level needs/],
    [['--frobnicate'], /unknown flag --frobnicate/],
    [['--context'], /--context needs a value/],
    [['stray'], /unexpected argument "stray"/],
  ])('refuses %j with a typed error', (argv, message) => {
    let caught: unknown;
    try {
      parseOperatorFlags(argv, {});
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(OperatorError);
    expect(KubeError.isInstance(caught)).toBe(true);
    expect((caught as OperatorError).code).toBe('ERR_OPERATOR_INVALID_FLAG');
    expect((caught as Error).message).toMatch(message);
  });
});
