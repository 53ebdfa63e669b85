import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TempFiles } from './testing/temp-files.js';
import { createTempFiles } from './testing/temp-files.js';

const example = fileURLToPath(new URL('../examples/show-current-context.ts', import.meta.url));

let files: TempFiles;
beforeEach(() => {
  files = createTempFiles();
});
afterEach(() => files.cleanup());

function runExample(kubeconfig: string, ...args: string[]): string {
  return execFileSync(
    process.execPath,
    ['--conditions=@k/source', '--import', 'tsx', example, ...args],
    {
      encoding: 'utf8',
      env: { ...process.env, KUBECONFIG: kubeconfig },
    },
  );
}

describe('examples/show-current-context.ts', () => {
  it('prints the selection and switches the context, keeping comments', () => {
    const kubeconfig = files.write(
      'config',
      `# my clusters
clusters:
- name: dev
  cluster: {server: "https://dev.example:6443"}
users:
- name: me
  user: {token: t}
contexts:
- name: dev
  context: {cluster: dev, user: me, namespace: apps}
- name: other
  context: {cluster: dev, user: me}
current-context: dev # the one I use
`,
    );
    expect(JSON.parse(runExample(kubeconfig))).toEqual({
      context: 'dev',
      server: 'https://dev.example:6443',
      user: 'me',
      auth: 'token',
      namespace: 'apps',
      impersonating: null,
    });
    const switched = runExample(kubeconfig, '--use', 'other');
    expect(switched).toContain(`switched to "other" in ${kubeconfig}`);
    expect(switched).toContain('"namespace": "default"');
    const text = readFileSync(kubeconfig, 'utf8');
    expect(text).toContain('# my clusters');
    expect(text).toMatch(/current-context: other/);
  });
});
