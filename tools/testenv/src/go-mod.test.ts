import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { findGo, goBuildEnvironment } from './go-environment.js';
import {
  etcdServerVersion,
  parseGoMod,
  renderEtcdWrapperGoMod,
  renderKubernetesWrapperGoMod,
  stagingModuleVersion,
} from './go-mod.js';

const execFileAsync = promisify(execFile);
const releaseGoMod = await readFile(
  new URL('./__fixtures__/kubernetes-v1.37.2.go.mod', import.meta.url),
  'utf8',
);
const tools = [
  'k8s.io/kubernetes/cmd/kube-apiserver',
  'k8s.io/kubernetes/cmd/kube-controller-manager',
];

describe('parseGoMod', () => {
  it('reads the directives of the real k8s.io/kubernetes v1.37.2 go.mod', () => {
    const parsed = parseGoMod(releaseGoMod);
    expect(parsed.module).toBe('k8s.io/kubernetes');
    expect(parsed.goVersion).toBe('1.26.0');
    expect(parsed.godebug).toEqual(['default=go1.26']);
    expect(parsed.requires.get('k8s.io/client-go')).toBe('v0.0.0');
    expect(parsed.requires.get('go.etcd.io/etcd/server/v3')).toBe('v3.7.0');
    const staging = parsed.replaces.filter((replace) =>
      replace.newPath.startsWith('./staging/src/'),
    );
    expect(staging).toHaveLength(33);
    expect(staging.every((replace) => replace.newVersion === undefined)).toBe(true);
  });

  it('handles single-line directives, versioned replaces and comments', () => {
    const parsed = parseGoMod(
      [
        'module example.com/m // the module',
        'go 1.24.0',
        'godebug (',
        '\tdefault=go1.24',
        '\tpanicnil=1',
        ')',
        'require example.com/a v1.2.3 // indirect',
        'replace example.com/a v1.2.3 => example.com/b v1.0.0',
      ].join('\n'),
    );
    expect(parsed.module).toBe('example.com/m');
    expect(parsed.godebug).toEqual(['default=go1.24', 'panicnil=1']);
    expect(parsed.requires.get('example.com/a')).toBe('v1.2.3');
    expect(parsed.replaces).toEqual([
      {
        oldPath: 'example.com/a',
        oldVersion: 'v1.2.3',
        newPath: 'example.com/b',
        newVersion: 'v1.0.0',
      },
    ]);
  });
});

describe('stagingModuleVersion', () => {
  it('maps 1.X.Y to v0.X.Y', () => {
    expect(stagingModuleVersion('1.37.2')).toBe('v0.37.2');
    expect(stagingModuleVersion('v1.34.4')).toBe('v0.34.4');
  });

  it('rejects what is not a release', () => {
    expect(() => stagingModuleVersion('1.37')).toThrow(/not a Kubernetes release/);
    expect(() => stagingModuleVersion('2.0.0')).toThrow(/not a Kubernetes release/);
  });
});

describe('renderKubernetesWrapperGoMod', () => {
  const rendered = renderKubernetesWrapperGoMod({
    kubernetesVersion: '1.37.2',
    releaseGoMod,
    tools,
  });

  it('replaces every staging module with its v0 tag and keeps no local path', () => {
    const parsed = parseGoMod(rendered);
    expect(parsed.replaces).toHaveLength(33);
    for (const replace of parsed.replaces) {
      expect(replace.newPath).toBe(replace.oldPath);
      expect(replace.newVersion).toBe('v0.37.2');
    }
    // Modules that newer releases added must be there, they are why the list is generated.
    const replaced = parsed.replaces.map((replace) => replace.oldPath);
    expect(replaced).toContain('k8s.io/cri-streaming');
    expect(replaced).toContain('k8s.io/streaming');
    expect(rendered).not.toContain('./staging');
  });

  it('copies the go and godebug lines and requires the release', () => {
    const parsed = parseGoMod(rendered);
    expect(parsed.goVersion).toBe('1.26.0');
    expect(parsed.godebug).toEqual(['default=go1.26']);
    expect([...parsed.requires]).toEqual([['k8s.io/kubernetes', 'v1.37.2']]);
    expect(rendered).toContain(
      'tool (\n\tk8s.io/kubernetes/cmd/kube-apiserver\n\tk8s.io/kubernetes/cmd/kube-controller-manager\n)',
    );
  });

  it('is a go.mod the Go toolchain accepts', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'k-testenv-gomod-'));
    try {
      await writeFile(join(dir, 'go.mod'), rendered);
      const { stdout } = await execFileAsync(findGo(), ['mod', 'edit', '-json'], {
        cwd: dir,
        env: goBuildEnvironment(),
      });
      const edited = JSON.parse(stdout) as {
        Replace: unknown[];
        Tool: { Path: string }[];
        GoDebug: { Key: string; Value: string }[];
      };
      expect(edited.Replace).toHaveLength(33);
      expect(edited.Tool.map((tool) => tool.Path)).toEqual(tools);
      expect(edited.GoDebug).toEqual([{ Key: 'default', Value: 'go1.26' }]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses a go.mod that is not k8s.io/kubernetes', () => {
    expect(() =>
      renderKubernetesWrapperGoMod({
        kubernetesVersion: '1.37.2',
        releaseGoMod: 'module example.com/x\n',
        tools,
      }),
    ).toThrow(/expected the go.mod of k8s.io\/kubernetes/);
    expect(() =>
      renderKubernetesWrapperGoMod({
        kubernetesVersion: '1.37.2',
        releaseGoMod: 'module k8s.io/kubernetes\n',
        tools,
      }),
    ).toThrow(/replaces no \.\/staging\/src modules/);
  });
});

describe('etcd wrapper', () => {
  it('takes the etcd server version the release requires', () => {
    expect(etcdServerVersion(releaseGoMod)).toBe('v3.7.0');
    expect(etcdServerVersion('module x\n')).toBeUndefined();
  });

  it('renders a module that requires and tools the etcd main package, without replaces', () => {
    const rendered = renderEtcdWrapperGoMod({ etcdVersion: 'v3.7.0', goVersion: '1.26.0' });
    const parsed = parseGoMod(rendered);
    expect([...parsed.requires]).toEqual([['go.etcd.io/etcd/server/v3', 'v3.7.0']]);
    expect(parsed.replaces).toEqual([]);
    expect(rendered).toContain('tool go.etcd.io/etcd/server/v3');
  });
});
