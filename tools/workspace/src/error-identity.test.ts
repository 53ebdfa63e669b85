import {
  ConfigArgumentError,
  ConfigInferenceError,
  InClusterConfigError,
  KubeError,
  KubeconfigError,
} from '@k/config';
import {
  ApplyConflictError,
  ClientsetError,
  CrdNotEstablishedError,
  ManifestError,
  PortForwardError,
  RemoteCommandError,
} from '@k/clientset';
import {
  ApiError,
  ConnectionError,
  RequestBuildError,
  RequestTimeoutError,
  ResponseDecodeError,
  RestConfigurationError,
  RestUsageError,
  WatchDecodeError,
  WebSocketError,
} from '@k/rest';
import { EnvtestError } from '@k/envtest';
import { RuntimeError, TerminalError } from '@k/runtime';
import { InformerError } from '@k/runtime/informer';
import { ExecPluginError, OidcError, TransportError } from '@k/transport';
import { describe, expect, it } from 'vitest';

const status = { kind: 'Status', status: 'Failure', code: 409, reason: 'Conflict' };

// One error of every class, with the classes it is (its own and its ancestors').
const samples: [
  error: KubeError,
  classes: readonly (abstract new (...args: never[]) => unknown)[],
][] = [
  [new KubeconfigError('ERR_CONFIG_PARSE', 'm'), [KubeconfigError]],
  [new InClusterConfigError('ERR_CONFIG_NOT_IN_CLUSTER', 'm'), [InClusterConfigError]],
  [new ConfigInferenceError(new Error('a'), new Error('b')), [ConfigInferenceError]],
  [new ConfigArgumentError('f', 'a', 'x', 1), [ConfigArgumentError]],
  [new TransportError('ERR_TRANSPORT_TLS', 'm'), [TransportError]],
  [new ExecPluginError('ERR_TRANSPORT_EXEC_RUN', 'm', { command: 'c' }), [ExecPluginError]],
  [new OidcError('ERR_TRANSPORT_OIDC_CONFIG', 'm'), [OidcError]],
  [new RequestBuildError('m'), [RequestBuildError]],
  [new ApiError(status), [ApiError]],
  [
    new ResponseDecodeError('m', { statusCode: 200, request: { method: 'GET', path: '/' } }),
    [ResponseDecodeError],
  ],
  [
    new RequestTimeoutError('ERR_REST_REQUEST_TIMEOUT', { method: 'GET', path: '/' }, 1),
    [RequestTimeoutError],
  ],
  [
    new ConnectionError('m', {
      request: { method: 'GET', path: '/' },
      attempts: 1,
      mayHaveReachedServer: false,
    }),
    [ConnectionError],
  ],
  [new WatchDecodeError('m'), [WatchDecodeError]],
  [new RestUsageError('ERR_REST_WATCH_REUSED', 'm'), [RestUsageError]],
  [new RestConfigurationError('m'), [RestConfigurationError]],
  [
    new WebSocketError('ERR_REST_WEBSOCKET_CLOSED', 'm', { request: { method: 'GET', path: '/' } }),
    [WebSocketError],
  ],
  [new ClientsetError('ERR_CLIENTSET_DISCOVERY', 'm'), [ClientsetError]],
  [new ManifestError(1, 'm'), [ManifestError, ClientsetError]],
  [
    new CrdNotEstablishedError('m', { crd: 'c', timeoutMs: 1, established: false, conditions: [] }),
    [CrdNotEstablishedError, ClientsetError],
  ],
  [new ApplyConflictError(new ApiError(status)), [ApplyConflictError, ApiError]],
  [new RemoteCommandError('m', { status: 'Failure' }), [RemoteCommandError, ClientsetError]],
  [new PortForwardError('m', 80), [PortForwardError, ClientsetError]],
  [new RuntimeError('ERR_RUNTIME_CONFIGURATION', 'm'), [RuntimeError]],
  [new InformerError('ERR_RUNTIME_INFORMER_WATCH', 'pods', 'm'), [InformerError, RuntimeError]],
  [new TerminalError('m'), [TerminalError, RuntimeError]],
  [new EnvtestError('ERR_ENVTEST_NOT_RUNNING', 'm'), [EnvtestError]],
];

const classes = [...new Set(samples.flatMap(([, own]) => own))];
const PREFIX: ReadonlyMap<unknown, string> = new Map<unknown, string>([
  [KubeconfigError, 'ERR_CONFIG_'],
  [InClusterConfigError, 'ERR_CONFIG_'],
  [ConfigInferenceError, 'ERR_CONFIG_'],
  [ConfigArgumentError, 'ERR_CONFIG_'],
  [TransportError, 'ERR_TRANSPORT_'],
  [ExecPluginError, 'ERR_TRANSPORT_'],
  [OidcError, 'ERR_TRANSPORT_'],
  [ClientsetError, 'ERR_CLIENTSET_'],
  [ManifestError, 'ERR_CLIENTSET_'],
  [CrdNotEstablishedError, 'ERR_CLIENTSET_'],
  [RemoteCommandError, 'ERR_CLIENTSET_'],
  [PortForwardError, 'ERR_CLIENTSET_'],
  [RuntimeError, 'ERR_RUNTIME_'],
  [InformerError, 'ERR_RUNTIME_'],
  [TerminalError, 'ERR_RUNTIME_'],
  [EnvtestError, 'ERR_ENVTEST_'],
]);

describe('error identity across the packages', () => {
  it('is exact per class, for isInstance and instanceof alike', () => {
    for (const [error, own] of samples) {
      expect(KubeError.isInstance(error)).toBe(true);
      // The class's own name, from its brand (bundlers may rename the class itself).
      expect(error.name).toBe(own[0]!.name);
      expect(error instanceof KubeError).toBe(true);
      for (const errorClass of classes) {
        const expected = own.includes(errorClass);
        const label = `${error.name} is ${errorClass.name}: ${expected}`;
        expect((errorClass as unknown as typeof KubeError).isInstance(error), label).toBe(expected);
        expect(error instanceof errorClass, label).toBe(expected);
      }
    }
  });

  it('works across copies of a package: the brand, not the prototype, decides', () => {
    // What another copy of @k/transport makes: a plain Error carrying the same Symbol.for brands.
    const fromAnotherCopy = Object.assign(new Error('m'), { code: 'ERR_TRANSPORT_TLS' });
    for (const name of ['@k/config.KubeError', '@k/transport.TransportError']) {
      Object.defineProperty(fromAnotherCopy, Symbol.for(name), { value: true });
    }
    expect(TransportError.isInstance(fromAnotherCopy)).toBe(true);
    expect(fromAnotherCopy instanceof TransportError).toBe(true);
    expect(fromAnotherCopy instanceof KubeError).toBe(true);
    expect(KubeconfigError.isInstance(fromAnotherCopy)).toBe(false);
    expect(new Error('plain') instanceof KubeError).toBe(false);
  });

  it('gives every code the prefix of the package it comes from', () => {
    for (const [error, own] of samples) {
      // @k/rest's classes, and ApplyConflictError: the server's answer, through @k/rest.
      const prefix = PREFIX.get(own[0]) ?? 'ERR_REST_';
      expect(error.code.startsWith(prefix), `${error.name}: ${error.code}`).toBe(true);
    }
  });
});
