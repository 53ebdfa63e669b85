import type { ControlPlaneConnection } from './connection.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The control plane of the run, provided by @k/testenv/vitest-global-setup. */
    kTestenv: ControlPlaneConnection;
  }
}

/** VITEST_PROVIDE_KEY is the `provide`/`inject` key of the run's control plane. */
export const VITEST_PROVIDE_KEY = 'kTestenv';
