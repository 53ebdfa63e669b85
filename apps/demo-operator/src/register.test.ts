import 'reflect-metadata';
import type { ResolvedConfig } from '@k/config';
import { CLIENTSET } from '@k/clientset/di';
import { RATE_LIMITER, REST_CLIENT } from '@k/rest/di';
import { EVENT_RECORDER, MANAGER } from '@k/runtime/di';
import { container } from 'tsyringe';
import { describe, expect, it } from 'vitest';
import { WebAppOperator } from './operator.js';
import { parseOperatorFlags } from './operator-flags.js';
import { registerOperator } from './register.js';
import { TextLogger } from './text-logger.js';
import { OPERATOR_FLAGS, OPERATOR_LOGGER, WEBAPP_OPERATOR } from './tokens.js';

const config: ResolvedConfig = {
  server: 'https://127.0.0.1:6443',
  contextName: 'c',
  clusterName: 'c',
  userName: 'u',
  namespace: 'default',
  namespaceExplicit: false,
  tls: { insecure: true },
  auth: { kind: 'token', token: 'not-a-secret' },
  disableCompression: false,
  source: 'kubeconfig',
};

describe('registerOperator', () => {
  it('wires every token of the operator over the clientset, each made once', async () => {
    const flags = parseOperatorFlags(
      ['--namespace=web', '--operator-namespace=ops', '--qps=7', '--burst=9'],
      {},
    )!;
    const logger = new TextLogger(() => {});
    const child = registerOperator(container.createChildContainer(), { config, flags, logger });
    expect(child.resolve(OPERATOR_FLAGS)).toBe(flags);
    expect(child.resolve(OPERATOR_LOGGER)).toBe(logger);
    const operator = child.resolve(WEBAPP_OPERATOR);
    expect(operator).toBeInstanceOf(WebAppOperator);
    expect(child.resolve(WEBAPP_OPERATOR)).toBe(operator);
    expect(operator.settings).toBe(flags.settings);
    expect(operator.manager).toBe(child.resolve(MANAGER));
    expect(operator.events).toBe(child.resolve(EVENT_RECORDER));
    expect(operator.manager.elector?.name).toBe('demo-operator');
    expect(operator.webapps.resource).toBe('webapps.apps.k.example in namespace web');
    expect(operator.registryConfigMaps.resource).toBe('configmaps in namespace ops');
    const clientset = child.resolve(CLIENTSET);
    expect(clientset.rest).toBe(child.resolve(REST_CLIENT));
    expect(clientset.rest.defaultNamespace).toBe('default');
    expect(child.resolve(RATE_LIMITER)).toMatchObject({ qps: 7, burst: 9 });
    await clientset.close();
  });
});
