import { describe, expect, it } from 'vitest';
import {
  findOptionalPropertiesWithoutUndefined,
  publicEntryPoints,
} from './public-optional-properties.js';

// Users with `exactOptionalPropertyTypes` pass `T | undefined` values (an unset flag, an
// environment variable) straight into options only when every optional property says
// `?: T | undefined`; otherwise each such field needs a conditional spread. The walk covers
// everything reachable from the published entry points, generated types included.
describe('the public types of the published packages', () => {
  it('are reached from every subpath export', () => {
    const specifiers = publicEntryPoints().map((entryPoint) => entryPoint.specifier);
    expect(specifiers).toEqual(
      expect.arrayContaining([
        '@k/config',
        '@k/transport',
        '@k/rest',
        '@k/clientset',
        '@k/clientset/core/v1',
        '@k/codegen',
        '@k/runtime',
        '@k/envtest',
      ]),
    );
  });

  it('accept undefined for every optional property', () => {
    const findings = findOptionalPropertiesWithoutUndefined(publicEntryPoints()).map(
      (finding) => `${finding.location} ${finding.property}?: ${finding.type}`,
    );
    expect(findings).toEqual([]);
  }, 300_000);
});
