import { join } from 'node:path';
import { controlPlane } from '@k/testenv/vitest';
import { afterEach, describe, expect, it } from 'vitest';
import { ExecCredentialProvider, type ExecCredentialProviderOptions } from '../src/exec.js';
import { ExecPluginError } from '../src/errors.js';
import { sendWithCredentials, whoAmI } from './fixtures/exec-plugin-requests.js';
import {
  createTestPlugin,
  execConfig,
  type PluginStep,
  type TestPlugin,
} from './fixtures/exec-plugin-script.js';

/**
 * Exec credential plugins against the real control plane from tools/testenv: the plugin is a
 * small Node script that prints the control plane's `tester` token or `admin` client
 * certificate, counting its runs in a file. Requests are sent with undici directly, using what
 * the provider hands out (exec-transport.e2e.test.ts covers the same through createTransport).
 */
describe('exec credential plugins (real control plane)', () => {
  const plugins: TestPlugin[] = [];
  const providers: ExecCredentialProvider[] = [];
  afterEach(() => {
    for (const provider of providers.splice(0)) provider.close();
    for (const plugin of plugins.splice(0)) plugin.cleanup();
  });

  const setup = (
    steps: PluginStep[],
    options: ExecCredentialProviderOptions = {},
    overrides: Parameters<TestPlugin['exec']>[0] = {},
  ) => {
    const connection = controlPlane();
    const plugin = createTestPlugin(steps);
    plugins.push(plugin);
    const provider = new ExecCredentialProvider(
      execConfig(plugin.exec(overrides), { server: connection.server }),
      { stderr: null, ...options },
    );
    providers.push(provider);
    return { connection, plugin, provider };
  };

  it('authenticates as tester with the token a plugin returns', async () => {
    const connection = controlPlane();
    const { plugin, provider } = setup([{ token: connection.users.tester.token }]);
    const credentials = await provider.getCredentials();
    const review = await whoAmI(connection, credentials);
    expect(review.status).toBe(201);
    expect(review.user?.username).toBe('tester');
    expect(review.user?.groups).toContain('k-testenv:testers');
    const list = await sendWithCredentials(
      connection,
      credentials,
      '/api/v1/namespaces/default/configmaps',
    );
    expect(list.status).toBe(200);
    expect(plugin.runs()).toHaveLength(1);
  });

  it('authenticates as admin with the client certificate a plugin returns', async () => {
    const connection = controlPlane();
    const { provider } = setup([
      { certificate: connection.users.admin.certPem, key: connection.users.admin.keyPem },
    ]);
    const credentials = await provider.getCredentials();
    expect(credentials.authorization).toBeUndefined();
    expect(credentials.clientCertificate?.certificate).toBe(connection.users.admin.certPem);
    const review = await whoAmI(connection, credentials);
    expect(review.status).toBe(201);
    expect(review.user?.username).toBe('admin');
    expect(review.user?.groups).toContain('system:masters');
  });

  it('re-runs the plugin when its credential expires', async () => {
    const connection = controlPlane();
    const token = connection.users.tester.token;
    const { plugin, provider } = setup([{ token, expiresInSeconds: 2 }], { expiryLeewayMs: 0 });
    const first = await provider.getCredentials();
    expect((await whoAmI(connection, first)).status).toBe(201);
    expect(await provider.getCredentials()).toBe(first);
    expect(plugin.runs()).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 2200));
    const second = await provider.getCredentials();
    expect(second).not.toBe(first);
    expect((await whoAmI(connection, second)).status).toBe(201);
    expect(plugin.runs()).toHaveLength(2);
  });

  it('single flight: 100 concurrent first requests spawn the plugin once', async () => {
    const connection = controlPlane();
    const { plugin, provider } = setup([{ token: connection.users.tester.token, sleepMs: 300 }]);
    const startedAt = Date.now();
    const statuses = await Promise.all(
      Array.from({ length: 100 }, async () => {
        const credentials = await provider.getCredentials();
        return (
          await sendWithCredentials(
            connection,
            credentials,
            '/api/v1/namespaces/default/configmaps',
          )
        ).status;
      }),
    );
    const elapsedMs = Date.now() - startedAt;
    expect(statuses.every((status) => status === 200)).toBe(true);
    expect(plugin.runs()).toHaveLength(1);
    expect(provider.runs).toBe(1);
    process.stderr.write(`[exec e2e] 100 concurrent requests, 1 plugin run, ${elapsedMs}ms\n`);
  });

  it('after a 401 the rejected credential is dropped and the plugin run again', async () => {
    const connection = controlPlane();
    const { plugin, provider } = setup([
      { token: 'not-a-valid-token-for-this-cluster' },
      { token: connection.users.tester.token },
    ]);
    const bad = await provider.getCredentials();
    expect((await whoAmI(connection, bad)).status).toBe(401);
    expect(await provider.invalidate(bad)).toBe(true);
    const good = await provider.getCredentials();
    expect((await whoAmI(connection, good)).status).toBe(201);
    expect(plugin.runs()).toHaveLength(2);
  });

  it('a failing plugin reports its exit code and stderr tail, never the token', async () => {
    const connection = controlPlane();
    const token = connection.users.tester.token;
    const { plugin, provider } = setup([{ token }]);
    const credentials = await provider.getCredentials();
    plugin.setSteps([
      {
        exitCode: 3,
        stderr: `refreshing session for token ${token}\nerror: identity provider unreachable\n`,
      },
    ]);
    await provider.invalidate(credentials);
    const error = await provider.getCredentials().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ExecPluginError);
    const failure = error as ExecPluginError;
    expect(failure.code).toBe('ERR_TRANSPORT_EXEC_FAILED');
    expect(failure.exitCode).toBe(3);
    expect(failure.message).toContain(
      `exec: executable ${plugin.pluginPath} failed with exit code 3`,
    );
    expect(failure.stderrTail).toBe(
      'refreshing session for token [redacted]\nerror: identity provider unreachable',
    );
    expect(`${failure.message} ${JSON.stringify(failure)}`).not.toContain(token);
  });

  it('a missing plugin fails with its install hint', async () => {
    const { provider } = setup(
      [],
      {},
      {
        command: 'k-e2e-credential-plugin-that-is-not-installed',
        installHint: 'install it with: npm install -g k-e2e-credential-plugin',
      },
    );
    const error = await provider.getCredentials().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ExecPluginError);
    expect((error as ExecPluginError).code).toBe('ERR_TRANSPORT_EXEC_NOT_FOUND');
    expect((error as Error).message).toMatch(
      /^exec: executable k-e2e-credential-plugin-that-is-not-installed not found\n\nIt looks like you are trying to use a client-go credential plugin that is not installed\./,
    );
    expect((error as Error).message).toMatch(
      /\n\ninstall it with: npm install -g k-e2e-credential-plugin$/,
    );
  });

  it('the cross-process cache spares a second process the slow plugin', async () => {
    const connection = controlPlane();
    const plugin = createTestPlugin([
      { token: connection.users.tester.token, expiresInSeconds: 600, sleepMs: 1000 },
    ]);
    plugins.push(plugin);
    const cacheDirectory = join(plugin.directory, 'credential-cache');
    const run = async () => {
      // A fresh provider with nothing in memory stands for a new CLI process.
      const provider = new ExecCredentialProvider(
        execConfig(plugin.exec(), { server: connection.server }),
        { stderr: null, cacheDirectory },
      );
      providers.push(provider);
      const startedAt = Date.now();
      const credentials = await provider.getCredentials();
      const elapsedMs = Date.now() - startedAt;
      expect((await whoAmI(connection, credentials)).status).toBe(201);
      return elapsedMs;
    };
    const cold = await run();
    const warm = await run();
    expect(plugin.runs()).toHaveLength(1);
    expect(cold).toBeGreaterThanOrEqual(1000);
    expect(warm).toBeLessThan(200);
    process.stderr.write(`[exec e2e] cross-process cache: cold ${cold}ms, warm ${warm}ms\n`);
  });
});
