import { chmodSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  MODULE_KINDS,
  runNodeProgram,
  startNodeProgram,
  type NodeProgramOptions,
} from '@k/test-utils';
import { controlPlane } from '@k/testenv/vitest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestPlugin,
  type PluginStep,
  type TestPlugin,
} from './fixtures/exec-plugin-script.js';
import { startOidcIssuer, unsignedJwt, type OidcIssuer } from './fixtures/oidc-issuer.js';

/**
 * What keeps a program alive, and what must not: plain programs (ESM and CommonJS, against the
 * built package, as a user runs them) with exec plugins and OIDC providers. A running plugin
 * must keep `node` alive until its credential arrives; a helper the plugin left holding stdout
 * must not; a provider whose transport was closed must not; and a plugin must not outlive the
 * program when SIGINT or SIGTERM kills it — without changing how the program itself reacts to
 * the signal (no handler: it still dies by the signal; its own handler: it decides).
 */

/** livingGroupMembers lists the processes of process group `pgid` that are not zombies (Linux). */
function livingGroupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    // After the command name in parentheses: state, ppid, pgrp, …
    const [state, , group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(group) === pgid && state !== 'Z') members.push(Number(entry));
  }
  return members;
}

async function eventually<T>(probe: () => T, done: (value: T) => boolean): Promise<T> {
  let value = probe();
  for (let attempt = 0; attempt < 150 && !done(value); attempt++) {
    await sleep(100);
    value = probe();
  }
  return value;
}

/** The program: an exec provider for `K_TEST_EXEC` (JSON), `setup` first, then getCredentials. */
const providerProgram = (setup = '') => ({
  imports: { '@k/transport/exec': ['ExecCredentialProvider'] },
  main: `
    ${setup}
    const exec = JSON.parse(process.env.K_TEST_EXEC);
    const provider = new ExecCredentialProvider(
      {
        server: 'https://127.0.0.1:6443', contextName: 'c', clusterName: 'c', userName: 'u',
        namespace: 'default', namespaceExplicit: false, tls: { insecure: false },
        auth: { kind: 'exec', exec }, disableCompression: false, source: 'kubeconfig',
      },
      { stderr: null },
    );
    console.log('asking for credentials');
    const credentials = await provider.getCredentials();
    console.log('got', credentials.authorization);
  `,
});

describe.each(MODULE_KINDS)('exec plugins and the life of a %s program', (kind) => {
  const plugins: TestPlugin[] = [];
  const sessions: number[] = [];
  afterEach(() => {
    for (const session of sessions.splice(0)) {
      try {
        process.kill(-session, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
    for (const plugin of plugins.splice(0)) plugin.cleanup();
  });

  const withPlugin = (steps: PluginStep[]): { plugin: TestPlugin; options: NodeProgramOptions } => {
    const plugin = createTestPlugin(steps);
    plugins.push(plugin);
    return { plugin, options: { env: { K_TEST_EXEC: JSON.stringify(plugin.exec()) } } };
  };

  /** startAndWaitForPlugin starts the program and resolves once the plugin runs, with its pids. */
  const startAndWaitForPlugin = async (
    setup: string,
    steps: PluginStep[],
  ): Promise<{
    program: Awaited<ReturnType<typeof startNodeProgram>>;
    pid: number;
    sleeperPid: number;
  }> => {
    const { plugin, options } = withPlugin(steps);
    const program = await startNodeProgram(providerProgram(setup), kind, options);
    await program.waitForStdout(/asking for credentials/);
    const [run] = await eventually(
      () => plugin.runs(),
      (runs) => runs.length > 0,
    );
    if (steps.some((step) => step.spawnSleeper)) {
      expect(run?.sleeperPid).toBeTypeOf('number');
      // The plugin runs in its own process group, with the sleeper it started.
      expect(livingGroupMembers(run!.pid).sort()).toEqual([run!.pid, run!.sleeperPid!].sort());
    }
    return { program, pid: run!.pid, sleeperPid: run!.sleeperPid! };
  };

  it('a running plugin keeps the program alive until its credential arrives', async () => {
    const { options } = withPlugin([{ token: 'late-token', sleepMs: 1000 }]);
    const result = await runNodeProgram(providerProgram(), kind, options);
    expect(result).toMatchObject({ exitCode: 0, timedOut: false, stderr: '' });
    expect(result.stdout).toContain('got Bearer late-token');
  });

  it('a helper left holding stdout keeps neither the credential nor the program waiting', async () => {
    const plugin = createTestPlugin([]);
    plugins.push(plugin);
    const pidFile = join(plugin.directory, 'helper.pid');
    const script = join(plugin.directory, 'daemonizing-plugin.sh');
    writeFileSync(
      script,
      [
        '#!/bin/sh',
        // A daemon in its own session that inherited stdout and stderr, as agents do.
        `setsid sleep 1000 & echo $! > '${pidFile}'`,
        `printf '%s' '{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{"token":"daemon-token"}}'`,
        '',
      ].join('\n'),
    );
    chmodSync(script, 0o755);
    const exec = { ...plugin.exec(), command: script };
    const result = await runNodeProgram(providerProgram(), kind, {
      env: { K_TEST_EXEC: JSON.stringify(exec) },
      timeoutMs: 30_000,
    });
    sessions.push(Number(readFileSync(pidFile, 'utf8')));
    expect(result).toMatchObject({ exitCode: 0, timedOut: false });
    expect(result.stdout).toContain('got Bearer daemon-token');
  });

  it.each(['SIGTERM', 'SIGINT'] as const)(
    'without a handler, %s still kills the program by that signal, and the plugin group with it',
    async (signal) => {
      const { program, pid, sleeperPid } = await startAndWaitForPlugin('', [
        { token: 't', sleepMs: 60_000, spawnSleeper: true },
      ]);
      program.child.kill(signal);
      const result = await program.exited;
      expect(result.signal).toBe(signal);
      expect(result.exitCode).toBeNull();
      const left = await eventually(
        () => livingGroupMembers(pid),
        (members) => members.length === 0,
      );
      expect(left).toEqual([]);
      expect(livingGroupMembers(pid)).not.toContain(sleeperPid);
    },
  );

  it('a handler of its own decides how the program exits; the plugin group still goes', async () => {
    const { program, pid } = await startAndWaitForPlugin(
      `process.on('SIGTERM', () => { console.log('cleaning up'); setTimeout(() => process.exit(7), 200); });`,
      [{ token: 't', sleepMs: 60_000, spawnSleeper: true }],
    );
    program.child.kill('SIGTERM');
    const result = await program.exited;
    expect(result).toMatchObject({ exitCode: 7, signal: null });
    expect(result.stdout).toContain('cleaning up');
    expect(
      await eventually(
        () => livingGroupMembers(pid),
        (m) => m.length === 0,
      ),
    ).toEqual([]);
  });

  it('a handler that carries on keeps the plugin running and the program gets its credential', async () => {
    const { program } = await startAndWaitForPlugin(
      `process.on('SIGTERM', () => console.log('ignoring SIGTERM'));`,
      // No sleeper here: the test plugin would wait for it before exiting.
      [{ token: 'survivor', sleepMs: 1500 }],
    );
    program.child.kill('SIGTERM');
    const result = await program.exited;
    expect(result).toMatchObject({ exitCode: 0, signal: null });
    expect(result.stdout).toContain('ignoring SIGTERM');
    expect(result.stdout).toContain('got Bearer survivor');
  });
});

describe.each(MODULE_KINDS)(
  'closed transports release a %s program (real control plane)',
  (kind) => {
    let issuer: OidcIssuer;
    const plugins: TestPlugin[] = [];
    beforeAll(async () => {
      issuer = await startOidcIssuer();
    });
    afterAll(async () => {
      await issuer.close();
      for (const plugin of plugins.splice(0)) plugin.cleanup();
    });

    /** A program that sends one request through a transport for `auth`, closes it, and returns. */
    const requestProgram = (auth: unknown) => {
      const connection = controlPlane();
      const config = {
        server: connection.server,
        contextName: 'c',
        clusterName: 'c',
        userName: 'u',
        namespace: 'default',
        namespaceExplicit: false,
        tls: { insecure: false },
        caPem: connection.caPem,
        auth,
        disableCompression: false,
        source: 'kubeconfig',
      };
      return {
        imports: { '@k/transport': ['createTransport'] },
        main: `
        const { caPem, ...rest } = JSON.parse(process.env.K_TEST_CONFIG);
        if (rest.auth.kind === 'auth-provider') rest.auth.config = new Map(rest.auth.config);
        const config = { ...rest, tls: { insecure: false, caData: new TextEncoder().encode(caPem) } };
        const transport = createTransport(config);
        const response = await transport.request({ origin: transport.server.origin, path: '/version', method: 'GET' });
        await response.body.text();
        console.log('status', response.statusCode);
        await transport.close();
        console.log('closed');
      `,
        env: { K_TEST_CONFIG: JSON.stringify(config) },
      };
    };

    it('an exec provider that ran its plugin does not hold the program after close', async () => {
      const connection = controlPlane();
      const plugin = createTestPlugin([{ token: connection.users.tester.token }]);
      plugins.push(plugin);
      const { env, ...program } = requestProgram({ kind: 'exec', exec: plugin.exec() });
      const result = await runNodeProgram(program, kind, { env, timeoutMs: 30_000 });
      expect(result).toMatchObject({ exitCode: 0, timedOut: false });
      expect(result.stdout).toMatch(/status 200\nclosed\n/);
      expect(plugin.runs()).toHaveLength(1);
    });

    it('an OIDC provider that refreshed its token does not hold the program after close', async () => {
      const config = [
        ['idp-issuer-url', issuer.url],
        ['client-id', issuer.clientId],
        ['idp-certificate-authority', issuer.caPath],
        ['id-token', unsignedJwt({ sub: 'old', exp: Math.floor(Date.now() / 1000) - 60 })],
        ['refresh-token', issuer.issueRefreshToken('lifetime-user')],
      ];
      const before = issuer.counts.token;
      const { env, ...program } = requestProgram({
        kind: 'auth-provider',
        name: 'oidc',
        userName: 'u',
        config,
      });
      const result = await runNodeProgram(program, kind, { env, timeoutMs: 30_000 });
      expect(result).toMatchObject({ exitCode: 0, timedOut: false });
      // The API server does not trust this issuer: the refreshed token is refused, which is fine.
      expect(result.stdout).toMatch(/status (200|401)\nclosed\n/);
      expect(issuer.counts.token).toBe(before + 1);
    });
  },
);
