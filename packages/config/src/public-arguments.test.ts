import { beforeAll, afterAll, describe, expect, it } from 'vitest';
import * as edit from './edit.js';
import * as api from './index.js';
import * as loading from './loading.js';
import * as view from './view.js';
import { KubeError } from './errors.js';
import type { TempFiles } from './testing/temp-files.js';
import { createTempFiles } from './testing/temp-files.js';

// Plain JavaScript callers get no type checking: every public function must check its arguments
// at run time and throw (or reject with) a typed error that says what to pass, instead of a raw
// TypeError from deep inside ("Cannot read properties of undefined").

/** Every entry point, as a JavaScript caller sees it: functions that take anything. */
const publicApi = { ...api, ...loading, ...view, ...edit };
const untyped = publicApi as unknown as Record<string, (...args: unknown[]) => unknown>;

const KUBECONFIG = `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: https://a.example}}]
users: [{name: u, user: {auth-provider: {name: oidc, config: {id-token: t}}}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`;

/** A secret passed where it does not belong: it must never appear in the message. */
const SECRET = 'sekrit-value-4242';

let files: TempFiles;
let loaded: api.LoadedKubeconfig;
let config: api.Kubeconfig;
beforeAll(async () => {
  files = createTempFiles();
  loaded = await api.loadKubeconfig({ explicitPath: files.write('config', KUBECONFIG), env: {} });
  config = loaded.config;
});
afterAll(() => files.cleanup());

/** A kubeconfig as JSON.parse gives it: the file's shape, not the model's Maps. */
const jsonShaped = () => ({
  clusters: [{ name: 'c', cluster: { server: 'https://a' } }],
  users: [],
  contexts: [],
  'current-context': '',
});
const mutate = () => undefined;

type BadCall = [description: string, args: () => unknown[]];

const BAD_CALLS: Record<string, BadCall[]> = {
  emptyKubeconfig: [], // takes no arguments
  parseKubeconfig: [
    ['no source', () => []],
    ['a number', () => [42]],
    ['an object', () => [{ text: 'a: b' }]],
    ['a path that is not a string', () => ['a: b', 5]],
  ],
  loadingPrecedence: [
    ['a path instead of options', () => ['/root/.kube/config']],
    ['explicitPath a number', () => [{ explicitPath: 1 }]],
    ['env a string', () => [{ env: 'HOME=/root' }]],
    ['env values that are not strings', () => [{ env: { KUBECONFIG: 5 } }]],
    ['homeDir a number', () => [{ homeDir: 1 }]],
    ['platform a number', () => [{ platform: 1 }]],
  ],
  mergeKubeconfigs: [
    ['nothing', () => []],
    ['a string', () => ['a.yaml']],
    ['an item without a config', () => [[{ path: 'a.yaml' }]]],
    ['an item whose config is shaped like JSON', () => [[{ path: 'a', config: jsonShaped() }]]],
  ],
  resolveLocalPaths: [
    ['nothing', () => []],
    ['no origins', () => [config]],
    ['a string', () => ['config', {}]],
  ],
  loadKubeconfig: [
    ['a path instead of options', () => ['/root/.kube/config']],
    ['explicitPath a number', () => [{ explicitPath: 7 }]],
    ['resolvePaths a string', () => [{ resolvePaths: 'no' }]],
    ['allowMissingExplicitPath a string', () => [{ allowMissingExplicitPath: 'yes' }]],
    ['onWarning a string', () => [{ onWarning: 'console' }]],
    ['env an array', () => [{ env: ['KUBECONFIG=x'] }]],
  ],
  removeNamespacePrefix: [
    ['nothing', () => []],
    ['a number', () => [5]],
  ],
  parseTimeout: [
    ['nothing', () => []],
    ['a number', () => [30]],
    ['NaN', () => [Number.NaN]],
    ['a name that is not a string', () => ['5s', 5]],
  ],
  resolveConfig: [
    ['nothing', () => []],
    ['a path', () => ['/root/.kube/config']],
    ['a kubeconfig shaped like JSON', () => [jsonShaped()]],
    ['a load result without its config', () => [{ ...loaded, config: undefined }]],
    ['a user entry that is not an object', () => [{ ...config, users: new Map([['u', 'x']]) }]],
    ['overrides a string', () => [config, 'x']],
    ['overrides.context a number', () => [config, { context: 1 }]],
    ['overrides.token not a string', () => [config, { token: [SECRET] }]],
    ['overrides.password a number', () => [config, { password: 4242 }]],
    ['overrides.insecureSkipTlsVerify a string', () => [config, { insecureSkipTlsVerify: 'true' }]],
    ['overrides.impersonateGroups a string', () => [config, { impersonateGroups: 'admins' }]],
    ['overrides.impersonateUserExtra an object', () => [config, { impersonateUserExtra: {} }]],
    ['overrides.requestTimeout a number', () => [config, { requestTimeout: 30 }]],
  ],
  loadInClusterConfig: [
    ['a path instead of options', () => ['/var/run/secrets']],
    ['env a string', () => [{ env: 'KUBERNETES_SERVICE_HOST=x' }]],
    ['tokenFile a number', () => [{ tokenFile: 1 }]],
  ],
  isInClusterPossible: [
    ['a path instead of options', () => ['/var/run/secrets']],
    ['caFile a number', () => [{ caFile: 1 }]],
  ],
  inferConfig: [
    ['a path instead of options', () => ['/root/.kube/config']],
    ['overrides a string', () => [{ overrides: 'x' }]],
    ['inCluster a string', () => [{ inCluster: 'x' }]],
    ['explicitPath a number', () => [{ explicitPath: 1 }]],
  ],
  encodeKubeconfig: [
    ['nothing', () => []],
    ['a string', () => [KUBECONFIG]],
    ['a kubeconfig shaped like JSON', () => [jsonShaped()]],
  ],
  formatKubeconfig: [
    ['nothing', () => []],
    ['no format', () => [config]],
    ['a format kubectl does not have', () => [config, 'xml']],
  ],
  redactKubeconfig: [
    ['nothing', () => []],
    ['a kubeconfig shaped like JSON', () => [jsonShaped()]],
  ],
  minifyKubeconfig: [
    ['nothing', () => []],
    ['a context name that is a number', () => [config, 5]],
  ],
  flattenKubeconfig: [
    ['nothing', () => []],
    ['no origins', () => [config]],
    ['options a string', () => [config, loaded.origins, '/tmp']],
  ],
  modifyKubeconfig: [
    ['nothing', () => []],
    ['a kubeconfig instead of a load result', () => [config, mutate]],
    ['no mutate function', () => [loaded]],
    ['mutate a string', () => [loaded, 'x']],
    ['options a number', () => [loaded, mutate, 5]],
    ['lockWaitMs NaN', () => [loaded, mutate, { lockWaitMs: Number.NaN }]],
    ['lockWaitMs negative', () => [loaded, mutate, { lockWaitMs: -1 }]],
    ['lockWaitMs a string', () => [loaded, mutate, { lockWaitMs: '100' }]],
  ],
  setCurrentContext: [
    ['nothing', () => []],
    ['a name that is a number', () => [loaded, 5]],
  ],
  setContext: [
    ['no name', () => [loaded]],
    ['changes a string', () => [loaded, 'x', 'cluster=c']],
    ['changes.namespace a number', () => [loaded, 'x', { namespace: 5 }]],
  ],
  updateUser: [
    ['no update function', () => [loaded, 'u']],
    ['a user name that is a number', () => [loaded, 5, mutate]],
  ],
  updateAuthProviderConfig: [
    ['entries a string', () => [loaded, 'u', 'id-token=x']],
    ['an entry that is not a string', () => [loaded, 'u', { 'id-token': [SECRET] }]],
  ],
  authProviderPersisterFor: [
    ['nothing', () => []],
    ['a kubeconfig path', () => ['/root/.kube/config']],
    ['a config without auth', () => [{ server: 'https://a' }]],
  ],
  defaultKubeconfigFile: [
    ['nothing', () => []],
    ['a path', () => ['/root/.kube/config']],
  ],
};

/** outcome calls `name` with `args` and returns what it threw or rejected with. */
async function thrown(name: string, args: unknown[]): Promise<unknown> {
  try {
    await untyped[name]!(...args);
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('public functions called with wrong arguments', () => {
  it('covers every function of the root, loading, view and edit entry points', () => {
    const functions = Object.entries(publicApi)
      .filter(([, value]) => typeof value === 'function' && !/^class\b/.test(String(value)))
      .map(([name]) => name)
      .sort();
    expect(functions).toEqual(Object.keys(BAD_CALLS).sort());
  });

  it.each(
    Object.entries(BAD_CALLS).flatMap(([name, calls]) =>
      calls.map(([description, args]) => ({ name, description, args })),
    ),
  )('$name with $description throws a typed error that says what to pass', async (call) => {
    const error = await thrown(call.name, call.args());
    if (!KubeError.isInstance(error) || error.code !== 'ERR_CONFIG_INVALID_ARGUMENT') {
      expect.fail(`expected ERR_CONFIG_INVALID_ARGUMENT, got ${String(error)}`);
    }
    expect(error.message).toMatch(new RegExp(`^${call.name}: [a-z]`));
    expect(error.message).toMatch(/ must be /);
    expect(error.message).not.toContain(SECRET);
    expect(error).toBeInstanceOf(api.ConfigArgumentError);
  });
});
