import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KubeconfigError } from '../errors.js';
import { loadingPrecedence } from '../load/loading-rules.js';
import type { TempFiles } from '../testing/temp-files.js';
import { createTempFiles } from '../testing/temp-files.js';
import { defaultKubeconfigFile } from './default-kubeconfig-file.js';

let files: TempFiles;
beforeEach(() => {
  files = createTempFiles();
});
afterEach(() => files.cleanup());

// Each row was checked against kubectl 1.32 (`kubectl config set-context new …`).
describe('defaultKubeconfigFile', () => {
  const choose = (options: { explicitPath?: string; KUBECONFIG?: string }) =>
    defaultKubeconfigFile(
      loadingPrecedence({
        homeDir: '/home/me',
        env: options.KUBECONFIG === undefined ? {} : { KUBECONFIG: options.KUBECONFIG },
        ...(options.explicitPath ? { explicitPath: options.explicitPath } : {}),
      }),
    );

  it('is the explicit file, even when KUBECONFIG is set', () => {
    expect(choose({ explicitPath: '/x/explicit', KUBECONFIG: '/a:/b' })).toBe('/x/explicit');
  });

  it('is ~/.kube/config without KUBECONFIG', () => {
    expect(choose({})).toBe('/home/me/.kube/config');
  });

  it('is the only KUBECONFIG file, existing or not', () => {
    expect(choose({ KUBECONFIG: files.path('missing') })).toBe(files.path('missing'));
  });

  it('is the first existing file of several, else the last listed', () => {
    const existing = files.write('second', '');
    const later = files.write('third', '');
    const list = [files.path('first'), existing, later].join(':');
    expect(choose({ KUBECONFIG: list })).toBe(existing);
    expect(choose({ KUBECONFIG: `${files.path('m1')}:${files.path('m2')}` })).toBe(
      files.path('m2'),
    );
  });

  it('fails when KUBECONFIG lists no file at all', () => {
    expect(() => choose({ KUBECONFIG: ':' })).toThrow(KubeconfigError);
  });
});
