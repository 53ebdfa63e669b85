// @k/config/view: what `kubectl config view` does (minify, flatten, redact, print).
export { encodeKubeconfig } from './view/encode-kubeconfig.js';
export type { JsonObject } from './view/encode-kubeconfig.js';
export { formatKubeconfig } from './view/format-kubeconfig.js';
export type { KubeconfigOutputFormat } from './view/format-kubeconfig.js';
export { redactKubeconfig, DATA_OMITTED, REDACTED } from './view/redact-kubeconfig.js';
export { minifyKubeconfig } from './view/minify-kubeconfig.js';
export { flattenKubeconfig } from './view/flatten-kubeconfig.js';
export type { FlattenKubeconfigOptions } from './view/flatten-kubeconfig.js';
