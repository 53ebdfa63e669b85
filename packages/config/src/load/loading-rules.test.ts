import { describe, expect, it } from 'vitest';
import { loadingPrecedence } from './loading-rules.js';

describe('loadingPrecedence', () => {
  it('uses ~/.kube/config when nothing is set', () => {
    const precedence = loadingPrecedence({ env: { HOME: '/home/me' }, platform: 'linux' });
    expect(precedence).toEqual({
      explicitPath: undefined,
      files: ['/home/me/.kube/config'],
      fromEnv: false,
      defaultFile: '/home/me/.kube/config',
    });
  });

  it('splits KUBECONFIG in order, dropping empty entries and later duplicates', () => {
    const precedence = loadingPrecedence({
      env: { HOME: '/h', KUBECONFIG: '/env/kubeconfig::/other/kubeconfig:/env/kubeconfig:' },
      platform: 'linux',
    });
    expect(precedence.files).toEqual(['/env/kubeconfig', '/other/kubeconfig']);
    expect(precedence.fromEnv).toBe(true);
  });

  it('uses the Windows separator on win32', () => {
    const precedence = loadingPrecedence({
      env: { HOME: 'C:\\h', KUBECONFIG: 'C:\\a;C:\\b' },
      platform: 'win32',
    });
    expect(precedence.files).toEqual(['C:\\a', 'C:\\b']);
  });

  it('lets an explicit path win alone over KUBECONFIG', () => {
    const precedence = loadingPrecedence({
      explicitPath: 'mine.yaml',
      env: { HOME: '/h', KUBECONFIG: '/env/kubeconfig' },
    });
    expect(precedence.files).toEqual(['mine.yaml']);
    expect(precedence.explicitPath).toBe('mine.yaml');
  });

  it('treats an empty KUBECONFIG as unset', () => {
    const precedence = loadingPrecedence({
      env: { HOME: '/h', KUBECONFIG: '' },
      platform: 'linux',
    });
    expect(precedence.files).toEqual(['/h/.kube/config']);
  });
});
