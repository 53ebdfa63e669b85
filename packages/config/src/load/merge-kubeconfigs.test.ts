import { describe, expect, it } from 'vitest';
import { parseKubeconfig } from '../model/parse-kubeconfig.js';
import { mergeKubeconfigs } from './merge-kubeconfigs.js';

function file(path: string, yaml: string) {
  return { path, config: parseKubeconfig(yaml, path).config };
}

describe('mergeKubeconfigs', () => {
  it('keeps the whole first entry of a name, even fields only the later one sets', () => {
    const { config, origins } = mergeKubeconfigs([
      file('/a', 'clusters: [{name: cow, cluster: {server: "http://cow.org:8080"}}]'),
      file(
        '/b',
        'clusters: [{name: cow, cluster: {server: "http://x", insecure-skip-tls-verify: true, disable-compression: true}}]',
      ),
    ]);
    expect(config.clusters.get('cow')).toEqual({ server: 'http://cow.org:8080' });
    expect(origins.clusters.get('cow')).toBe('/a');
  });

  it('turns colors on when any file sets it, and merges extensions first-wins', () => {
    const { config } = mergeKubeconfigs([
      file(
        '/a',
        'preferences: {extensions: [{name: p, extension: 1}]}\nextensions: [{name: e, extension: a}]',
      ),
      file(
        '/b',
        'preferences: {colors: true, extensions: [{name: p, extension: 2}, {name: q, extension: 3}]}\nextensions: [{name: e, extension: b}, {name: f, extension: c}]',
      ),
    ]);
    expect(config.preferences.colors).toBe(true);
    expect(Object.fromEntries(config.preferences.extensions!)).toEqual({ p: 1, q: 3 });
    expect(Object.fromEntries(config.extensions)).toEqual({ e: 'a', f: 'c' });
  });

  it('lets an empty current-context in an earlier file defer to a later one', () => {
    const { config } = mergeKubeconfigs([
      file('/a', 'current-context: ""'),
      file('/b', 'current-context: later'),
    ]);
    expect(config.currentContext).toBe('later');
  });
});
