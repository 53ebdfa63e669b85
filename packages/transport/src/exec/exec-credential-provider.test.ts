import { PassThrough } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createTestPlugin,
  execConfig,
  type PluginStep,
  type TestPlugin,
} from '../../e2e/fixtures/exec-plugin-script.js';
import { secretLeaks } from '../../e2e/support/secret-leaks.js';
import { ExecPluginError } from '../errors.js';
import {
  ExecCredentialProvider,
  createExecCredentialProviderFactory,
  type ExecCredentialProviderOptions,
} from './exec-credential-provider.js';
import { INSTALL_HINT_HELP } from './install-hint-limiter.js';

const V1BETA1 = 'client.authentication.k8s.io/v1beta1';

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // Field 3 of /proc/<pid>/stat is the state; Z is a zombie (dead, not reaped).
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

describe('ExecCredentialProvider', () => {
  const plugins: TestPlugin[] = [];
  const providers: ExecCredentialProvider[] = [];
  afterEach(() => {
    for (const provider of providers.splice(0)) provider.close();
    for (const plugin of plugins.splice(0)) plugin.cleanup();
  });

  const setup = (
    steps: PluginStep[],
    options: ExecCredentialProviderOptions = {},
    execOverrides: Parameters<TestPlugin['exec']>[0] = {},
    now: () => number = Date.now,
  ) => {
    const plugin = createTestPlugin(steps);
    plugins.push(plugin);
    const provider = new ExecCredentialProvider(
      execConfig(plugin.exec(execOverrides)),
      { stderr: null, ...options },
      now,
    );
    providers.push(provider);
    return { plugin, provider };
  };

  const failure = async (promise: Promise<unknown>): Promise<ExecPluginError> => {
    const error = await promise.then(
      () => {
        throw new Error('expected a failure');
      },
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ExecPluginError);
    return error as ExecPluginError;
  };

  it('D1: runs the plugin with the ExecCredential request and returns its token', async () => {
    const { plugin, provider } = setup(
      [{ token: 'foo-bar' }],
      { isTerminal: () => false },
      { apiVersion: V1BETA1, interactiveMode: 'IfAvailable' },
    );
    expect(await provider.getCredentials()).toEqual({ authorization: 'Bearer foo-bar' });
    const [run] = plugin.runs();
    expect(run?.execInfo).toEqual({
      kind: 'ExecCredential',
      apiVersion: V1BETA1,
      spec: { interactive: false },
    });
    expect(run?.stdinIsTTY).toBe(false);
  });

  it('D2: IfAvailable on a terminal sends interactive true', async () => {
    const { plugin, provider } = setup(
      [{ token: 't' }],
      { isTerminal: () => true },
      { apiVersion: V1BETA1, interactiveMode: 'IfAvailable' },
    );
    await provider.getCredentials();
    expect(plugin.runs()[0]?.execInfo).toMatchObject({ spec: { interactive: true } });
  });

  it('D4/D6: interactive-mode errors happen before any run', async () => {
    const always = setup(
      [{ token: 't' }],
      { isTerminal: () => false },
      { interactiveMode: 'Always' },
    );
    const error = await failure(always.provider.getCredentials());
    expect(error.code).toBe('ERR_TRANSPORT_EXEC_INTERACTIVE_MODE');
    expect(error.message).toBe(
      'exec plugin cannot support interactive mode: standard input is not a terminal',
    );
    const unset = setup([{ token: 't' }], {}, { interactiveMode: undefined });
    expect((await failure(unset.provider.getCredentials())).message).toBe(
      'exec plugin cannot support interactive mode: unknown interactiveMode: ""',
    );
    expect(always.plugin.runs()).toHaveLength(0);
    expect(unset.plugin.runs()).toHaveLength(0);
  });

  it('D11: provideClusterInfo passes the cluster and its exec extension', async () => {
    const plugin = createTestPlugin([{ token: 't' }]);
    plugins.push(plugin);
    const extension = {
      apiVersion: 'group/v1',
      kind: 'PluginConfig',
      spec: { audience: 'snorlax' },
    };
    const provider = new ExecCredentialProvider(
      execConfig(
        plugin.exec({ provideClusterInfo: true }),
        {
          server: 'foo',
          tls: { insecure: false, serverName: 'bar', caData: new TextEncoder().encode('baz') },
        },
        extension,
      ),
      { stderr: null },
    );
    providers.push(provider);
    await provider.getCredentials();
    expect(JSON.stringify(plugin.runs()[0]?.execInfo)).toBe(
      '{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","spec":{"cluster":{"server":"foo","tls-server-name":"bar","certificate-authority-data":"YmF6","config":{"apiVersion":"group/v1","kind":"PluginConfig","spec":{"audience":"snorlax"}}},"interactive":false}}',
    );
  });

  it('merges the environment in order with KUBERNETES_EXEC_INFO last, and passes args without a shell', async () => {
    const plugin = createTestPlugin([{ token: 't' }]);
    plugins.push(plugin);
    const exec = plugin.exec({
      args: ['$HOME', '; echo injected', '*', 'a b'],
      env: [
        { name: 'K_TEST_PLUGIN_SCRIPT', value: plugin.scriptPath },
        { name: 'K_TEST_A', value: 'first' },
        { name: 'K_TEST_A', value: 'second' },
        { name: 'K_TEST_PARENT', value: 'overridden' },
        { name: 'KUBERNETES_EXEC_INFO', value: 'user supplied' },
      ],
    });
    const provider = new ExecCredentialProvider(execConfig(exec), {
      stderr: null,
      environment: { ...process.env, K_TEST_PARENT: 'parent', K_TEST_ONLY_PARENT: 'kept' },
    });
    providers.push(provider);
    await provider.getCredentials();
    const [run] = plugin.runs();
    expect(run?.args).toEqual(['$HOME', '; echo injected', '*', 'a b']);
    expect(run?.env).toMatchObject({
      K_TEST_A: 'second',
      K_TEST_PARENT: 'overridden',
      K_TEST_ONLY_PARENT: 'kept',
    });
    expect(run?.execInfo).toMatchObject({ kind: 'ExecCredential' });
  });

  it('single flight: 100 concurrent first calls run the plugin once', async () => {
    const { plugin, provider } = setup([{ token: 'shared', sleepMs: 200 }]);
    const results = await Promise.all(Array.from({ length: 100 }, () => provider.getCredentials()));
    expect(plugin.runs()).toHaveLength(1);
    expect(provider.runs).toBe(1);
    expect(new Set(results).size).toBe(1);
    expect(results[0]).toEqual({ authorization: 'Bearer shared' });
  });

  it('keeps a credential without expiry until it is invalidated', async () => {
    const { plugin, provider } = setup([{ token: 'one' }, { token: 'two' }]);
    const first = await provider.getCredentials();
    expect(await provider.getCredentials()).toBe(first);
    expect(plugin.runs()).toHaveLength(1);
    // A stale credential does not drop the current one.
    expect(await provider.invalidate({ authorization: 'Bearer older' })).toBe(true);
    expect(await provider.getCredentials()).toBe(first);
    expect(await provider.invalidate({ ...first })).toBe(true);
    expect(await provider.getCredentials()).toEqual({ authorization: 'Bearer two' });
    expect(plugin.runs()).toHaveLength(2);
  });

  it('re-runs the plugin when the credential expires, leeway included', async () => {
    let offset = 0;
    const now = () => Date.now() + offset;
    const { plugin, provider } = setup(
      [
        { token: 'one', expiresInSeconds: 3600 },
        { token: 'two', expiresInSeconds: 3600 },
      ],
      { expiryLeewayMs: 10_000 },
      {},
      now,
    );
    const first = await provider.getCredentials();
    expect(first.expiresAt).toBeInstanceOf(Date);
    offset = 3600_000 - 30_000;
    expect(await provider.getCredentials()).toBe(first);
    offset = 3600_000 - 5_000; // inside the 10 s leeway
    expect((await provider.getCredentials()).authorization).toBe('Bearer two');
    expect(plugin.runs()).toHaveLength(2);
  });

  it('with no leeway uses the credential until now > expiry (client-go)', async () => {
    let offset = 0;
    const { plugin, provider } = setup(
      [{ token: 'one', expiresInSeconds: 3600 }, { token: 'two' }],
      { expiryLeewayMs: 0 },
      {},
      () => Date.now() + offset,
    );
    await provider.getCredentials();
    offset = 3600_000 - 2_000;
    expect((await provider.getCredentials()).authorization).toBe('Bearer one');
    offset = 3600_000 + 2_000;
    expect((await provider.getCredentials()).authorization).toBe('Bearer two');
    expect(plugin.runs()).toHaveLength(2);
  });

  it('D13: a missing command fails with the install hint, rate-limited', async () => {
    const { provider } = setup(
      [],
      {},
      {
        command: '/nonexistent/k-plugin-that-does-not-exist',
        installHint: 'some install hint',
      },
    );
    const error = await failure(provider.getCredentials());
    expect(error.code).toBe('ERR_TRANSPORT_EXEC_NOT_FOUND');
    expect(error.message).toBe(
      `exec: executable /nonexistent/k-plugin-that-does-not-exist not found\n\n${INSTALL_HINT_HELP}\n\nsome install hint`,
    );
    const bare = setup([], {}, { command: 'k-plugin-not-on-path', installHint: 'brew install it' });
    expect((await failure(bare.provider.getCredentials())).message).toContain('brew install it');
  });

  it('a plugin that cannot start leaks no argument or env value, through any wrapper', async () => {
    const secrets = ['--oidc-client-secret=s3cr3t-in-args', 's3cr3t-in-env'];
    for (const command of ['/nonexistent/k-plugin-with-secrets', 'k-plugin-with-secrets']) {
      const { provider } = setup(
        [],
        {},
        {
          command,
          args: [secrets[0]!, '--issuer=https://issuer.example'],
          env: [{ name: 'K_TEST_CLIENT_SECRET', value: secrets[1]! }],
        },
      );
      const error = await failure(provider.getCredentials());
      expect(error.code).toBe('ERR_TRANSPORT_EXEC_NOT_FOUND');
      expect(secretLeaks(error, secrets)).toEqual([]);
    }
  });

  it('looks a bare command up in the parent PATH, not in exec.env (client-go)', async () => {
    const plugin = createTestPlugin([{ token: 'from-path' }]);
    plugins.push(plugin);
    const bin = join(plugin.directory, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'k-test-plugin'), `#!/bin/sh\nexec '${plugin.pluginPath}' "$@"\n`);
    chmodSync(join(bin, 'k-test-plugin'), 0o755);
    const exec = plugin.exec({ command: 'k-test-plugin' });
    const inExecEnv = new ExecCredentialProvider(
      execConfig({ ...exec, env: [...(exec.env ?? []), { name: 'PATH', value: bin }] }),
      { stderr: null },
    );
    providers.push(inExecEnv);
    expect((await failure(inExecEnv.getCredentials())).code).toBe('ERR_TRANSPORT_EXEC_NOT_FOUND');
    const inParent = new ExecCredentialProvider(execConfig(exec), {
      stderr: null,
      environment: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` },
    });
    providers.push(inParent);
    expect(await inParent.getCredentials()).toEqual({ authorization: 'Bearer from-path' });
  });

  it('refuses a plugin found through an empty PATH entry, saying why, with the hint', async () => {
    const plugin = createTestPlugin([{ token: 'planted' }]);
    plugins.push(plugin);
    writeFileSync(join(plugin.directory, 'k-planted-plugin'), '#!/bin/sh\necho planted\n');
    chmodSync(join(plugin.directory, 'k-planted-plugin'), 0o755);
    const previous = process.cwd();
    process.chdir(plugin.directory);
    try {
      const provider = new ExecCredentialProvider(
        execConfig(plugin.exec({ command: 'k-planted-plugin', installHint: 'install it' })),
        { stderr: null, environment: { ...process.env, PATH: ':/usr/bin:/bin' } },
      );
      providers.push(provider);
      const error = await failure(provider.getCredentials());
      expect(error.code).toBe('ERR_TRANSPORT_EXEC_NOT_FOUND');
      expect(error.message).toBe(
        `exec: executable k-planted-plugin not found: k-planted-plugin was found relative to the current directory (through an empty or relative PATH entry) and is not run\n\n${INSTALL_HINT_HELP}\n\ninstall it`,
      );
    } finally {
      process.chdir(previous);
    }
  });

  it('D14: a failing plugin reports command, exit code and the stderr tail', async () => {
    const { plugin, provider } = setup([
      { exitCode: 73, stderr: 'line one\nerror: the identity provider said no\n' },
    ]);
    const error = await failure(provider.getCredentials());
    expect(error.code).toBe('ERR_TRANSPORT_EXEC_FAILED');
    expect(error.exitCode).toBe(73);
    expect(error.command).toBe(plugin.exec().command);
    expect(error.stderrTail).toBe('line one\nerror: the identity provider said no');
    expect(error.message).toBe(
      `exec: executable ${plugin.exec().command} failed with exit code 73\nstderr (last lines, redacted):\nline one\nerror: the identity provider said no`,
    );
  });

  it('never leaks a credential through a failure', async () => {
    const token = 'k8s-token-0123456789';
    const { plugin, provider } = setup([{ token }]);
    const first = await provider.getCredentials();
    plugin.setSteps([
      {
        exitCode: 1,
        stderr: `debug: cached token ${token} was refused\n`,
        stdout: JSON.stringify({ status: { token: 'second-secret-token' } }),
      },
    ]);
    await provider.invalidate(first);
    plugin.setSteps([
      {
        exitCode: 1,
        stderr: `debug: cached token ${token} was refused; new one second-secret-token\n`,
        stdout: JSON.stringify({ status: { token: 'second-secret-token' } }),
      },
    ]);
    const error = await failure(provider.getCredentials());
    const everything = JSON.stringify({ message: error.message, tail: error.stderrTail, error });
    expect(everything).not.toContain(token);
    expect(everything).not.toContain('second-secret-token');
    expect(error.stderrTail).toBe('debug: cached token [redacted] was refused; new one [redacted]');
  });

  it('passes plugin stderr through while keeping it for errors', async () => {
    const stderr = new PassThrough();
    const chunks: Buffer[] = [];
    stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    const { provider } = setup([{ token: 't', stderr: 'opening browser…\n' }], { stderr });
    await provider.getCredentials();
    expect(Buffer.concat(chunks).toString()).toBe('opening browser…\n');
  });

  it('rejects invalid output with client-go messages', async () => {
    const { provider } = setup([
      {
        stdout: JSON.stringify({
          kind: 'ExecCredential',
          apiVersion: 'client.authentication.k8s.io/v1',
          status: {},
        }),
      },
    ]);
    const error = await failure(provider.getCredentials());
    expect(error.code).toBe('ERR_TRANSPORT_EXEC_INVALID_OUTPUT');
    expect(error.message).toBe("exec plugin didn't return a token or cert/key pair");
  });

  it('kills the whole process tree on timeout', async () => {
    const { plugin, provider } = setup([{ token: 't', sleepMs: 60_000, spawnSleeper: true }], {
      timeoutMs: 500,
    });
    const startedAt = Date.now();
    const error = await failure(provider.getCredentials());
    expect(error.code).toBe('ERR_TRANSPORT_EXEC_TIMEOUT');
    expect(error.message).toBe(
      `exec: executable ${plugin.exec().command} did not finish within 500ms; it was killed`,
    );
    expect(Date.now() - startedAt).toBeLessThan(5000);
    const sleeperPid = plugin.runs()[0]?.sleeperPid;
    expect(sleeperPid).toBeTypeOf('number');
    // SIGTERM reached the grandchild too (it is gone, or a zombie nobody reaped yet).
    for (let attempt = 0; attempt < 40 && isRunning(sleeperPid!); attempt++) await sleep(50);
    expect(isRunning(sleeperPid!)).toBe(false);
  });

  it('close kills a running plugin and fails later calls', async () => {
    const { provider } = setup([{ token: 't', sleepMs: 60_000 }]);
    const pending = provider.getCredentials();
    await sleep(200);
    provider.close();
    expect((await failure(pending)).code).toBe('ERR_TRANSPORT_EXEC_CLOSED');
    expect((await failure(provider.getCredentials())).code).toBe('ERR_TRANSPORT_EXEC_CLOSED');
  });

  it('an aborted caller stops waiting; the run goes on for the others', async () => {
    const { plugin, provider } = setup([{ token: 't', sleepMs: 300 }]);
    const controller = new AbortController();
    const aborted = provider.getCredentials({ signal: controller.signal });
    const other = provider.getCredentials();
    controller.abort(new Error('caller gave up'));
    await expect(aborted).rejects.toThrow('caller gave up');
    expect(await other).toEqual({ authorization: 'Bearer t' });
    expect(plugin.runs()).toHaveLength(1);
  });

  it('a caller whose signal is already aborted leaves no unhandled rejection behind', async () => {
    const unhandled: unknown[] = [];
    const listener = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', listener);
    try {
      const { plugin, provider } = setup([{ exitCode: 3, sleepMs: 100 }]);
      const reason = new Error('caller gave up before it started');
      await expect(provider.getCredentials({ signal: AbortSignal.abort(reason) })).rejects.toBe(
        reason,
      );
      for (let attempt = 0; attempt < 100 && plugin.runs().length === 0; attempt++) {
        await sleep(20);
      }
      await sleep(500);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', listener);
    }
  });

  it('refuses unsupported apiVersions at construction', () => {
    const plugin = createTestPlugin([]);
    plugins.push(plugin);
    const create = () =>
      new ExecCredentialProvider(
        execConfig(plugin.exec({ apiVersion: 'client.authentication.k8s.io/v1alpha1' })),
      );
    expect(create).toThrow(ExecPluginError);
    expect(create).toThrow(
      'exec plugin: invalid apiVersion "client.authentication.k8s.io/v1alpha1"',
    );
  });

  it('does not run when the user also has a client certificate and key (client-go)', async () => {
    const plugin = createTestPlugin([{ token: 't' }]);
    plugins.push(plugin);
    const provider = new ExecCredentialProvider(
      execConfig(plugin.exec(), {
        tls: { insecure: false, certFile: '/c.crt', keyData: new Uint8Array([1]) },
      }),
    );
    providers.push(provider);
    expect(await provider.getCredentials()).toEqual({});
    expect(plugin.runs()).toHaveLength(0);
    expect(await provider.invalidate({})).toBe(false);
  });

  describe('cross-process file cache', () => {
    it('shares an unexpired credential with a fresh provider (another process)', async () => {
      const plugin = createTestPlugin([
        { token: 'cached', expiresInSeconds: 3600 },
        { token: 'fresh', expiresInSeconds: 3600 },
      ]);
      plugins.push(plugin);
      const cacheDirectory = join(plugin.directory, 'cache');
      const make = () => {
        const provider = new ExecCredentialProvider(execConfig(plugin.exec()), {
          stderr: null,
          environment: { ...process.env, K_EXEC_CREDENTIAL_CACHE_DIR: cacheDirectory },
        });
        providers.push(provider);
        return provider;
      };
      const first = await make().getCredentials();
      const second = await make().getCredentials();
      expect(second).toEqual(first);
      expect(plugin.runs()).toHaveLength(1);
      // A credential the server refused is removed from the cache too.
      const third = make();
      await third.getCredentials();
      await third.invalidate(first);
      expect((await make().getCredentials()).authorization).toBe('Bearer fresh');
      expect(plugin.runs()).toHaveLength(2);
    });

    it('honours expiry and ignores a corrupt file', async () => {
      let offset = 0;
      const plugin = createTestPlugin([
        { token: 'one', expiresInSeconds: 60 },
        { token: 'two', expiresInSeconds: 60 },
        { token: 'three', expiresInSeconds: 60 },
      ]);
      plugins.push(plugin);
      const cacheDirectory = join(plugin.directory, 'cache');
      const make = () => {
        const provider = new ExecCredentialProvider(
          execConfig(plugin.exec()),
          { stderr: null, cacheDirectory, expiryLeewayMs: 0 },
          () => Date.now() + offset,
        );
        providers.push(provider);
        return provider;
      };
      await make().getCredentials();
      offset = 120_000;
      expect((await make().getCredentials()).authorization).toBe('Bearer two');
      const { readdirSync } = await import('node:fs');
      const [file] = readdirSync(cacheDirectory);
      writeFileSync(join(cacheDirectory, file!), '{"format":1,', { mode: 0o600 });
      expect((await make().getCredentials()).authorization).toBe('Bearer three');
      expect(plugin.runs()).toHaveLength(3);
    });

    it('is off unless configured, and null turns it off', async () => {
      const plugin = createTestPlugin([{ token: 'a', expiresInSeconds: 3600 }]);
      plugins.push(plugin);
      const provider = new ExecCredentialProvider(execConfig(plugin.exec()), {
        stderr: null,
        cacheDirectory: null,
        environment: { ...process.env, K_EXEC_CREDENTIAL_CACHE_DIR: join(plugin.directory, 'c') },
      });
      providers.push(provider);
      await provider.getCredentials();
      const { existsSync } = await import('node:fs');
      expect(existsSync(join(plugin.directory, 'c'))).toBe(false);
    });
  });
});

describe('createExecCredentialProviderFactory', () => {
  it('shares one provider per exec config and cluster until the last handle closes', async () => {
    const plugin = createTestPlugin([{ token: 'one' }, { token: 'two' }]);
    try {
      const factory = createExecCredentialProviderFactory({ stderr: null });
      expect(factory.kind).toBe('exec');
      const now = Date.now;
      const config = execConfig(plugin.exec());
      const first = factory.create({ config, now });
      const second = factory.create({ config: execConfig(plugin.exec()), now });
      const [a, b] = await Promise.all([first.getCredentials(), second.getCredentials()]);
      expect(a).toBe(b);
      expect(plugin.runs()).toHaveLength(1);
      await first.close?.();
      expect(await second.getCredentials()).toBe(a);
      await expect(first.getCredentials()).rejects.toMatchObject({
        code: 'ERR_TRANSPORT_EXEC_CLOSED',
      });
      await second.close?.();
      const third = factory.create({ config, now });
      expect(await third.getCredentials()).toEqual({ authorization: 'Bearer two' });
      await third.close?.();
      const other = factory.create({ config: execConfig(plugin.exec({ args: ['x'] })), now });
      await other.getCredentials();
      await other.close?.();
      expect(plugin.runs()).toHaveLength(3);
    } finally {
      plugin.cleanup();
    }
  });

  it('throws for an unsupported apiVersion', () => {
    const factory = createExecCredentialProviderFactory();
    expect(() =>
      factory.create({
        config: execConfig({ command: 'x', apiVersion: 'v1', provideClusterInfo: false }),
        now: Date.now,
      }),
    ).toThrow('exec plugin: invalid apiVersion "v1"');
  });
});
