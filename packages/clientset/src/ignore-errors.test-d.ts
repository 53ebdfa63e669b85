import { describe, expectTypeOf, it } from 'vitest';
import type { Clientset } from './clientset.js';
import type { ConfigMap } from './generated/core/v1/index.js';
import type { DeleteResult } from './resource/delete-result.js';
import { ignoreAlreadyExists, ignoreNotFound } from './ignore-errors.js';

declare const cs: Clientset;

describe('ignoreNotFound and ignoreAlreadyExists', () => {
  it("resolve with the call's own type or undefined", () => {
    const configMaps = cs.coreV1.configMaps('ns');
    expectTypeOf(ignoreNotFound(configMaps.get('a'))).toEqualTypeOf<
      Promise<ConfigMap | undefined>
    >();
    expectTypeOf(ignoreNotFound(configMaps.delete('a'))).toEqualTypeOf<
      Promise<DeleteResult<ConfigMap> | undefined>
    >();
    expectTypeOf(ignoreAlreadyExists(configMaps.create({ metadata: { name: 'a' } }))).toEqualTypeOf<
      Promise<ConfigMap | undefined>
    >();
  });

  it('take the promise, not the call', () => {
    // @ts-expect-error a function is not the request in flight
    void ignoreNotFound(() => cs.coreV1.configMaps('ns').delete('a'));
  });
});
