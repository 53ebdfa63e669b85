import { describe, expect, it } from 'vitest';
import { KubeconfigError } from '../errors.js';
import { parseKubeconfig } from '../model/parse-kubeconfig.js';
import { minifyKubeconfig } from './minify-kubeconfig.js';

const { config } = parseKubeconfig(`
current-context: one
clusters: [{name: c1, cluster: {server: s1}}, {name: c2, cluster: {server: s2}}]
users: [{name: u1, user: {token: t1}}, {name: u2, user: {token: t2}}]
contexts:
- {name: one, context: {cluster: c1, user: u1}}
- {name: two, context: {cluster: c2, user: u2}}
- {name: no-cluster, context: {cluster: gone, user: u1}}
- {name: no-user, context: {cluster: c1, user: gone}}
- {name: bare, context: {}}
preferences: {colors: true}
extensions: [{name: e, extension: 1}]
`);

function failure(run: () => unknown): KubeconfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof KubeconfigError) return error;
  }
  throw new Error('expected a KubeconfigError');
}

describe('minifyKubeconfig', () => {
  it('keeps the current context, its cluster and user, preferences and extensions', () => {
    const minified = minifyKubeconfig(config);
    expect([...minified.contexts.keys()]).toEqual(['one']);
    expect([...minified.clusters.keys()]).toEqual(['c1']);
    expect([...minified.users.keys()]).toEqual(['u1']);
    expect(minified.preferences.colors).toBe(true);
    expect(minified.extensions.size).toBe(1);
  });

  it('uses --context instead and makes it current', () => {
    const minified = minifyKubeconfig(config, 'two');
    expect(minified.currentContext).toBe('two');
    expect([...minified.clusters.keys()]).toEqual(['c2']);
  });

  it('keeps no cluster or user for a context that names none', () => {
    const minified = minifyKubeconfig(config, 'bare');
    expect(minified.clusters.size + minified.users.size).toBe(0);
  });

  it("fails with kubectl's messages", () => {
    const none = { ...config, currentContext: '' };
    expect(failure(() => minifyKubeconfig(none)).message).toBe(
      'current-context must exist in order to minify',
    );
    expect(failure(() => minifyKubeconfig(config, 'gone')).message).toBe(
      'cannot locate context gone',
    );
    expect(failure(() => minifyKubeconfig(config, 'no-cluster')).message).toBe(
      'cannot locate cluster gone',
    );
    const error = failure(() => minifyKubeconfig(config, 'no-user'));
    expect(error.message).toBe('cannot locate user gone');
    expect(error.code).toBe('ERR_CONFIG_NOT_FOUND');
  });
});
