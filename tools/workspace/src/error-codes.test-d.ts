// The stable error codes of every package, pinned: changing one is a breaking change, and this
// file (checked by `tsc` in the typecheck task) makes it a deliberate one.
import type { KConfigErrorCode } from '@k/config';
import type { KClientsetErrorCode } from '@k/clientset';
import type { KRestErrorCode } from '@k/rest';
import type { RuntimeErrorCode } from '@k/runtime';
import type { KTransportErrorCode } from '@k/transport';

type Equal<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Expect<T extends true> = T;

export type ConfigCodes = Expect<
  Equal<
    KConfigErrorCode,
    | 'ERR_CONFIG_DUPLICATE_NAME'
    | 'ERR_CONFIG_EMPTY'
    | 'ERR_CONFIG_INVALID'
    | 'ERR_CONFIG_INVALID_ARGUMENT'
    | 'ERR_CONFIG_IN_CLUSTER_TOKEN'
    | 'ERR_CONFIG_NOT_FOUND'
    | 'ERR_CONFIG_NOT_INFERRED'
    | 'ERR_CONFIG_NOT_IN_CLUSTER'
    | 'ERR_CONFIG_PARSE'
    | 'ERR_CONFIG_READ'
    | 'ERR_CONFIG_WRITE'
  >
>;

export type TransportCodes = Expect<
  Equal<
    KTransportErrorCode,
    | 'ERR_TRANSPORT_AUTH_PROVIDER_REMOVED'
    | 'ERR_TRANSPORT_CLOSED'
    | 'ERR_TRANSPORT_CREDENTIALS'
    | 'ERR_TRANSPORT_CREDENTIAL_PROVIDER_DUPLICATE'
    | 'ERR_TRANSPORT_CREDENTIAL_PROVIDER_NOT_FOUND'
    | 'ERR_TRANSPORT_EXEC_CLOSED'
    | 'ERR_TRANSPORT_EXEC_CLUSTER_INFO'
    | 'ERR_TRANSPORT_EXEC_FAILED'
    | 'ERR_TRANSPORT_EXEC_INTERACTIVE_MODE'
    | 'ERR_TRANSPORT_EXEC_INVALID_API_VERSION'
    | 'ERR_TRANSPORT_EXEC_INVALID_OUTPUT'
    | 'ERR_TRANSPORT_EXEC_NOT_FOUND'
    | 'ERR_TRANSPORT_EXEC_RUN'
    | 'ERR_TRANSPORT_EXEC_TIMEOUT'
    | 'ERR_TRANSPORT_FILE_READ'
    | 'ERR_TRANSPORT_INTERCEPTOR_DUPLICATE'
    | 'ERR_TRANSPORT_INVALID_ARGUMENT'
    | 'ERR_TRANSPORT_OIDC_CLOSED'
    | 'ERR_TRANSPORT_OIDC_CONFIG'
    | 'ERR_TRANSPORT_OIDC_DISCOVERY'
    | 'ERR_TRANSPORT_OIDC_INVALID_ID_TOKEN'
    | 'ERR_TRANSPORT_OIDC_NO_REFRESH_TOKEN'
    | 'ERR_TRANSPORT_OIDC_PERSIST'
    | 'ERR_TRANSPORT_OIDC_REFRESH'
    | 'ERR_TRANSPORT_ORIGIN'
    | 'ERR_TRANSPORT_PROXY'
    | 'ERR_TRANSPORT_SERVER_URL'
    | 'ERR_TRANSPORT_TLS'
  >
>;

export type RestCodes = Expect<
  Equal<
    KRestErrorCode,
    | 'ERR_REST_API_STATUS'
    | 'ERR_REST_API_UNEXPECTED_RESPONSE'
    | 'ERR_REST_CONFIGURATION'
    | 'ERR_REST_CONNECTION'
    | 'ERR_REST_REQUEST_INVALID'
    | 'ERR_REST_REQUEST_TIMEOUT'
    | 'ERR_REST_RESPONSE_DECODE'
    | 'ERR_REST_WATCH_DECODE'
    | 'ERR_REST_WATCH_IDLE_TIMEOUT'
    | 'ERR_REST_WATCH_REUSED'
    | 'ERR_REST_WEBSOCKET_CLOSED'
    | 'ERR_REST_WEBSOCKET_HANDSHAKE'
    | 'ERR_REST_WEBSOCKET_PONG_TIMEOUT'
    | 'ERR_REST_WEBSOCKET_PROTOCOL'
  >
>;

export type ClientsetCodes = Expect<
  Equal<
    KClientsetErrorCode,
    | 'ERR_CLIENTSET_CONFIGURATION'
    | 'ERR_CLIENTSET_COPY'
    | 'ERR_CLIENTSET_CRD_NOT_ESTABLISHED'
    | 'ERR_CLIENTSET_DISCOVERY'
    | 'ERR_CLIENTSET_INVALID_ARGUMENT'
    | 'ERR_CLIENTSET_INVALID_OBJECT'
    | 'ERR_CLIENTSET_MANIFEST'
    | 'ERR_CLIENTSET_NO_MAPPING'
    | 'ERR_CLIENTSET_PORT_FORWARD'
    | 'ERR_CLIENTSET_REMOTE_COMMAND'
    | 'ERR_CLIENTSET_VERB_NOT_SUPPORTED'
  >
>;

export type RuntimeCodes = Expect<
  Equal<
    RuntimeErrorCode,
    | 'ERR_RUNTIME_CONFIGURATION'
    | 'ERR_RUNTIME_CONFLICT'
    | 'ERR_RUNTIME_INFORMER_LIST'
    | 'ERR_RUNTIME_INFORMER_WATCH'
    | 'ERR_RUNTIME_INVALID_ARGUMENT'
    | 'ERR_RUNTIME_LEADERSHIP_LOST'
    | 'ERR_RUNTIME_LISTEN'
    | 'ERR_RUNTIME_NOT_SYNCED'
    | 'ERR_RUNTIME_SHUTDOWN_TIMEOUT'
    | 'ERR_RUNTIME_TERMINAL'
  >
>;
