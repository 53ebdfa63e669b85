import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadKubeconfig, resolveConfig, type ResolvedConfig } from '@k/config';
import { controlPlane } from '@k/testenv/vitest';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { ExecPluginError, createTransport, type Transport } from '../src/index.js';
import { builtinCredentialProviderFactories } from '../src/auth.js';
import { createExecCredentialProviderFactory } from '../src/exec.js';
import {
  createTestPlugin,
  type PluginStep,
  type TestPlugin,
} from './fixtures/exec-plugin-script.js';
import { secretLeaks } from './support/secret-leaks.js';

/**
 * Exec plugins through the whole stack: a kubeconfig file with an `exec` user is loaded and
 * resolved by @k/config, `createTransport` selects the exec provider, and requests go through
 * the auth interceptor to the real control plane (client certificates from the plugin are used
 * for new TLS connections; a 401 makes the provider re-run the plugin and the request is
 * replayed once).
 */
describe('exec credential plugins through createTransport (real control plane)', () => {
  const plugins: TestPlugin[] = [];
  const transports: Transport[] = [];
  afterEach(async () => {
    for (const transport of transports.splice(0)) await transport.close();
    for (const plugin of plugins.splice(0)) plugin.cleanup();
  });

  /** Writes a kubeconfig whose only user runs the test plugin, and resolves it as kubectl would. */
  const kubeconfigFor = async (plugin: TestPlugin): Promise<ResolvedConfig> => {
    const connection = controlPlane();
    const path = join(plugin.directory, 'kubeconfig');
    const exec = plugin.exec();
    writeFileSync(
      path,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [
          {
            name: 'testenv',
            cluster: {
              server: connection.server,
              'certificate-authority-data': Buffer.from(connection.caPem).toString('base64'),
            },
          },
        ],
        users: [
          {
            name: 'plugin-user',
            user: {
              exec: {
                apiVersion: exec.apiVersion,
                command: exec.command,
                env: exec.env,
                interactiveMode: 'Never',
              },
            },
          },
        ],
        contexts: [{ name: 'plugin', context: { cluster: 'testenv', user: 'plugin-user' } }],
        'current-context': 'plugin',
      }),
      { mode: 0o600 },
    );
    return resolveConfig(await loadKubeconfig({ explicitPath: path }));
  };

  const setup = async (steps: PluginStep[]) => {
    const plugin = createTestPlugin(steps);
    plugins.push(plugin);
    const config = await kubeconfigFor(plugin);
    // A private exec factory: no sharing with other tests, plugin stderr kept out of the log.
    const factories = builtinCredentialProviderFactories().map((factory) =>
      factory.kind === 'exec' ? createExecCredentialProviderFactory({ stderr: null }) : factory,
    );
    const transport = createTransport(config, {
      credentialProviderFactories: factories,
      builtinCredentialProviders: false,
    });
    transports.push(transport);
    return { plugin, transport };
  };

  const whoAmI = async (transport: Transport) => {
    const response = await request(
      new URL('/apis/authentication.k8s.io/v1/selfsubjectreviews', transport.server.origin),
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }),
        dispatcher: transport,
      },
    );
    const body = (await response.body.json()) as {
      status?: { userInfo?: { username?: string; groups?: string[] } };
    };
    return { status: response.statusCode, user: body.status?.userInfo };
  };

  it('authenticates with the plugin token and runs the plugin once for 100 concurrent requests', async () => {
    const connection = controlPlane();
    const { plugin, transport } = await setup([
      { token: connection.users.tester.token, sleepMs: 200 },
    ]);
    const startedAt = Date.now();
    const answers = await Promise.all(Array.from({ length: 100 }, () => whoAmI(transport)));
    const elapsedMs = Date.now() - startedAt;
    expect(answers.every((answer) => answer.status === 201)).toBe(true);
    expect(answers[0]?.user?.username).toBe('tester');
    expect(plugin.runs()).toHaveLength(1);
    process.stderr.write(
      `[exec transport e2e] 100 concurrent requests through createTransport, 1 plugin run, ${elapsedMs}ms\n`,
    );
  });

  it('presents the client certificate the plugin returns', async () => {
    const connection = controlPlane();
    const { transport } = await setup([
      { certificate: connection.users.admin.certPem, key: connection.users.admin.keyPem },
    ]);
    const answer = await whoAmI(transport);
    expect(answer.status).toBe(201);
    expect(answer.user?.username).toBe('admin');
    expect(answer.user?.groups).toContain('system:masters');
  });

  it('401 → the plugin is run again → the request is replayed once and succeeds', async () => {
    const connection = controlPlane();
    const { plugin, transport } = await setup([
      { token: 'a-token-the-server-does-not-know' },
      { token: connection.users.tester.token },
    ]);
    const answer = await whoAmI(transport);
    expect(answer.status).toBe(201);
    expect(answer.user?.username).toBe('tester');
    expect(plugin.runs()).toHaveLength(2);
    // Later requests use the fresh token without another run.
    expect((await whoAmI(transport)).status).toBe(201);
    expect(plugin.runs()).toHaveLength(2);
  });

  it('a plugin that keeps returning a rejected token yields the 401 after one replay', async () => {
    const { plugin, transport } = await setup([{ token: 'always-wrong-token-for-this-server' }]);
    expect((await whoAmI(transport)).status).toBe(401);
    expect(plugin.runs()).toHaveLength(2);
  });

  it('a failing plugin fails the request with the ExecPluginError', async () => {
    const { transport } = await setup([{ exitCode: 5, stderr: 'no session; run login first\n' }]);
    const error = await whoAmI(transport).catch((caught: unknown) => caught);
    const cause = error instanceof ExecPluginError ? error : (error as Error).cause;
    expect(cause).toBeInstanceOf(ExecPluginError);
    expect((cause as ExecPluginError).exitCode).toBe(5);
    expect((cause as ExecPluginError).stderrTail).toBe('no session; run login first');
  });

  it('a plugin that cannot start fails the request with no secret argument or env value', async () => {
    const secrets = ['--oidc-client-secret=e2e-s3cr3t-arg', 'e2e-s3cr3t-env'];
    const plugin = createTestPlugin([]);
    plugins.push(plugin);
    const config = await kubeconfigFor(plugin);
    const auth = config.auth as Extract<ResolvedConfig['auth'], { kind: 'exec' }>;
    const factories = builtinCredentialProviderFactories().map((factory) =>
      factory.kind === 'exec' ? createExecCredentialProviderFactory({ stderr: null }) : factory,
    );
    for (const command of [join(plugin.directory, 'not-installed'), 'k-e2e-not-installed']) {
      const transport = createTransport(
        {
          ...config,
          auth: {
            ...auth,
            exec: {
              ...auth.exec,
              command,
              args: [secrets[0]!],
              env: [...(auth.exec.env ?? []), { name: 'K_E2E_SECRET', value: secrets[1]! }],
            },
          },
        },
        { credentialProviderFactories: factories, builtinCredentialProviders: false },
      );
      transports.push(transport);
      const error = await whoAmI(transport).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ExecPluginError);
      expect((error as ExecPluginError).code).toBe('ERR_TRANSPORT_EXEC_NOT_FOUND');
      expect(secretLeaks(error, secrets)).toEqual([]);
    }
  });
});
