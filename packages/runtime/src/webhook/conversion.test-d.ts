import { describe, expectTypeOf, it } from 'vitest';
import {
  conversionHandler,
  type ConversionDefinition,
  type VersionConverter,
} from './conversion.js';
import { checkRoundTrip } from './conversion-round-trip.js';
import type { WebhookHandler } from './webhook-handler.js';
import {
  lossyWebAppConversion,
  webAppConversion,
  type WebApp,
  type WebAppV1alpha1,
} from './__fixtures__/webapp-conversion.js';

/** conversion stands for a method that takes a definition, as WebhookServer's `conversion()` does. */
declare function conversion<Hub, Spokes extends Record<string, unknown> = Record<string, unknown>>(
  definition: ConversionDefinition<Hub, Spokes>,
): void;

const names = { group: 'demo.k.io', kind: 'WebApp', plural: 'webapps', hub: 'v1' } as const;
declare const hub: WebApp;
declare const spoke: WebAppV1alpha1;

describe('ConversionDefinition types', () => {
  it('types fromHub by the hub given, and checks what toHub returns', () => {
    conversion<WebApp>({
      ...names,
      spokes: {
        v1alpha1: {
          toHub: (old: WebAppV1alpha1) => ({ ...old, spec: { image: old.spec.image } }),
          fromHub: (current) => {
            expectTypeOf(current).toEqualTypeOf<WebApp>();
            return spoke;
          },
        },
      },
    });
    conversion<WebApp>({
      ...names,
      // @ts-expect-error toHub must return the hub
      spokes: { v1alpha1: { toHub: (old: WebAppV1alpha1) => old.spec, fromHub: () => spoke } },
    });
  });

  it('checks each spoke against its type, given with the hub or by a typed converter', () => {
    conversion<WebApp, { v1alpha1: WebAppV1alpha1 }>({
      ...names,
      spokes: {
        v1alpha1: {
          toHub: (old) => {
            expectTypeOf(old).toEqualTypeOf<WebAppV1alpha1>();
            return hub;
          },
          // @ts-expect-error fromHub must return the spoke's type
          fromHub: () => ({ spec: { host: 1 } }),
        },
      },
    });
    const v1alpha1: VersionConverter<WebApp, WebAppV1alpha1> = {
      toHub: () => hub,
      fromHub: () => spoke,
    };
    conversion<WebApp>({ ...names, spokes: { v1alpha1 } });
    // @ts-expect-error a converter of another hub does not fit
    conversion<{ spec: { replicas: number } }>({ ...names, spokes: { v1alpha1 } });
  });

  it('lets typed definitions into conversionHandler and checkRoundTrip', () => {
    expectTypeOf(
      conversionHandler([webAppConversion, lossyWebAppConversion]),
    ).toEqualTypeOf<WebhookHandler>();
    expectTypeOf(checkRoundTrip(webAppConversion, hub)).toBeArray();
  });
});
