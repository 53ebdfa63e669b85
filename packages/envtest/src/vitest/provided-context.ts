// What @k/envtest's vitest global setup provides to the test workers (`inject('kEnvtest')`).

/** EnvtestProvidedContext is the value of `inject('kEnvtest')`: the run's shared plane. */
export interface EnvtestProvidedContext {
  /** kubeconfigPath: the plane's kubeconfig (also `K_ENVTEST_KUBECONFIG` in the workers). */
  readonly kubeconfigPath: string;
}

/** PROVIDED_KEY is the key the global setup provides the shared plane under. */
export const PROVIDED_KEY = 'kEnvtest';

declare module 'vitest' {
  export interface ProvidedContext {
    kEnvtest: EnvtestProvidedContext;
  }
}
