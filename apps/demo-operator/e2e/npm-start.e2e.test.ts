import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { Clientset } from '@k/clientset';
import { environment, useTestNamespace } from '@k/envtest/vitest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createWebAppsClient } from '../src/generated/web-app-v1beta1.js';
import { LEASE_NAME } from '../src/names.js';
import { startChild, type Child } from './child-process.js';
import { APP_ROOT, clientsetFor } from './helpers.js';

const WORKSPACE_ROOT = path.resolve(APP_ROOT, '../..');
const NPM_START = path.join(APP_ROOT, 'bin/npm-start.mjs');
const children: Child[] = [];

afterEach(() => {
  for (const child of children.splice(0)) child.child.kill('SIGKILL');
});

/** processesNaming lists the pids of live processes whose command line mentions `text`. */
function processesNaming(text: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(text);
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
}

function npmStart(args: string[] = []): Child {
  const child = startChild(NPM_START, args, { KUBECONFIG: undefined });
  children.push(child);
  return child;
}

describe('npm start', () => {
  it('is this program', () => {
    const manifest = JSON.parse(
      readFileSync(path.join(WORKSPACE_ROOT, 'package.json'), 'utf8'),
    ) as {
      scripts: Record<string, string>;
    };
    expect(manifest.scripts.start).toMatch(/(^|&& )node apps\/demo-operator\/bin\/npm-start\.mjs$/);
  });

  it('starts its own control plane, runs the operator, shows the sample reconciled, and on Ctrl-C stops everything and exits 0', async () => {
    const program = npmStart();
    const runDir = (await program.waitForOutput(/run directory (\S+)\)/, 150_000))[1]!;
    expect(processesNaming(runDir).length).toBeGreaterThanOrEqual(5); // etcd, kube-apiserver, controller-manager, scheduler, kwok
    await program.waitForOutput(
      /^ready: WebApp demo\/hello is Available, 2 replicas ready$/m,
      90_000,
    );
    const output = (await program.waitForOutput(/^press Ctrl-C to stop everything$/m, 10_000))
      .input!;
    expect(output).toMatch(/^installed the CustomResourceDefinition webapps\.apps\.k\.example/m);
    // The webhooks, served by the operator on 127.0.0.1 and installed by URL with their CA.
    expect(output).toMatch(/^installed the webhooks at https:\/\/127\.0\.0\.1:\d+ /m);
    expect(output).toMatch(
      /^denied: WebApp demo\/taken \(Service taken is another team's\): .*a Service named taken already exists in the namespace and no WebApp controls it/m,
    );
    expect(output).toMatch(
      /^converted: WebApp demo\/legacy written as apps\.k\.example\/v1alpha1 \(spec\.image nginx:1\.27\), read as apps\.k\.example\/v1beta1: spec \{"container":\{"image":"nginx:1\.27",.*"limits":\{"memory":"32Mi"\}/m,
    );
    expect(output).toMatch(/^\[cluster\] Deployment demo\/hello created: 2 wanted/m);
    expect(output).toMatch(
      /^\[cluster\] Service demo\/hello created: ClusterIP [\d.]+, port 80 → http$/m,
    );
    expect(output).toMatch(
      /^\[cluster\] Pod demo\/hello-\S+ now: Running, ready on k-testenv-node-\d$/m,
    );
    expect(output).toMatch(
      /^\[cluster\] WebApp demo\/hello now: 2\/2 ready, Available=True, Progressing=False \(RolloutComplete\)/m,
    );
    expect(output).toMatch(
      /^\[operator\] .* reconciled webapp=demo\/hello wrote=registry-recorded,deployment-created,service-created/m,
    );
    const kubectl = output.match(
      /^ {2}(kubectl --kubeconfig \S+ --context admin -n demo) get webapps/m,
    );
    expect(kubectl).not.toBeNull();
    const health = output.match(/^the operator serves (http:\/\/127\.0\.0\.1:\d+)\/healthz/m)![1]!;
    expect((await fetch(`${health}/readyz`)).status).toBe(200);

    program.child.kill('SIGINT');
    const exit = await program.exited;
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(exit.output).toMatch(/^operator stopped$/m);
    expect(exit.output).toMatch(/^control plane stopped; its run directory is removed$/m);
    expect(existsSync(runDir)).toBe(false);
    expect(processesNaming(runDir)).toEqual([]);
    await expect(fetch(`${health}/healthz`)).rejects.toThrow();
  }, 300_000);

  describe('with --kubeconfig', () => {
    const namespace = useTestNamespace({ prefix: 'demo-npm-start' });
    let cs: Clientset;

    beforeAll(async () => {
      cs = await clientsetFor();
    });

    afterAll(async () => {
      await cs?.close();
    });

    it('uses that cluster (and says so), confined to its namespace, and deletes the sample at the end', async () => {
      const program = npmStart([
        `--kubeconfig=${environment().kubeconfigPath}`,
        '--context=admin',
        `--namespace=${namespace.name}`,
      ]);
      await program.waitForOutput(
        new RegExp(
          `^using the cluster ${environment().server.replace(/[.]/g, '\\.')} \\(context admin`,
          'm',
        ),
        60_000,
      );
      await program.waitForOutput(/^ready: [^]*^press Ctrl-C/m, 90_000);
      expect(program.output()).not.toMatch(/control plane/);
      expect(program.output()).toMatch(
        /^webhooks are not installed: a remote cluster cannot call a server on this machine/m,
      );
      const webapps = createWebAppsClient(cs.rest, namespace.name);
      expect((await webapps.get('hello')).status?.readyReplicas).toBe(2);

      program.child.kill('SIGINT');
      const exit = await program.exited;
      expect(exit).toMatchObject({ code: 0, signal: null });
      expect(exit.output).toMatch(/^deleted the sample WebApp/m);
      expect((await webapps.list()).items).toEqual([]);
      const lease = await cs.coordinationV1.leases('demo-operator-system').get(LEASE_NAME);
      expect(lease.spec?.holderIdentity ?? '').toBe('');
    }, 180_000);
  });
});
