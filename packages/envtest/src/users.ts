import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Clientset } from '@k/clientset';
import type { TokenRequest } from '@k/clientset/authentication/v1';
import type { PolicyRule } from '@k/clientset/rbac/v1';
import { ApiError, isAlreadyExists, isNotFound } from '@k/rest';
import { issueClientCertificate } from '@k/testenv';
import { EnvtestError, toEnvtestError } from './errors.js';
import type { EnvironmentContext } from './internal/context.js';
import { EnvironmentUser } from './test-user.js';
import type { ServiceAccountUserOptions, TestUser, TestUserOptions } from './types.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';
/** RBAC_TIMEOUT_MS bounds the wait until kube-apiserver's authorizer sees a new binding. */
const RBAC_TIMEOUT_MS = 10_000;
/** A TokenRequest's default lifetime; kube-apiserver refuses less than 600 s. */
const DEFAULT_TOKEN_SECONDS = 3600;

/**
 * createUser makes a new identity on the plane: a client certificate signed by the plane's CA
 * (CN = name, one O per group), and the RBAC the options ask for, bound to that user:
 * - `rules` become a Role in `namespace` with a RoleBinding, or without a namespace a ClusterRole
 *   with a ClusterRoleBinding;
 * - `role` binds an existing Role of `namespace`;
 * - `clusterRole` binds an existing ClusterRole, in `namespace` with a RoleBinding, else
 *   cluster-wide.
 * Created RBAC objects have unique names: a default-named user's own name
 * (`k-envtest-user-<8 hex>`), else `k-envtest-<name>-<8 hex>`. Cluster-scoped objects are
 * deleted by the handle's `close()`; namespaced ones go with their namespace. It resolves once
 * kube-apiserver's authorizer allows the first bound rule (RBAC is served from an informer cache
 * that may lag the write), so the user's first request is not refused. Throws ERR_ENVTEST_INVALID_OPTIONS,
 * ERR_ENVTEST_PKI_FAILED or ERR_ENVTEST_PROVISION_FAILED (the server's ApiError as `cause`).
 */
export async function createUser(
  context: EnvironmentContext,
  admin: TestUser,
  options: TestUserOptions = {},
): Promise<TestUser> {
  checkUserOptions(options);
  const suffix = randomBytes(4).toString('hex');
  const name = options.name ?? `k-envtest-user-${suffix}`;
  const groups = [...(options.groups ?? [])];
  let identity;
  try {
    identity = await issueClientCertificate(path.join(context.runDir, 'pki'), {
      commonName: name,
      organizations: groups,
    });
  } catch (error) {
    throw toEnvtestError(error);
  }
  const user = new EnvironmentUser(context, {
    name,
    groups,
    credentials: { certPem: identity.certPem, keyPem: identity.keyPem },
  });
  if (options.rules || options.role || options.clusterRole) {
    const clientset = await admin.clientset();
    const rule = await bindUser(context, clientset, name, suffix, options);
    if (rule) await waitUntilAllowed(clientset, { user: name, groups }, rule, options.namespace);
  }
  return user;
}

/**
 * createServiceAccountUser is the identity of the ServiceAccount `namespace/name` (created when
 * missing), through a TokenRequest valid `expirationSeconds` (default 3600). Its name is
 * `system:serviceaccount:<namespace>:<name>`, as the server authenticates it. Throws
 * ERR_ENVTEST_PROVISION_FAILED (the namespace is missing, the request was refused); the token
 * never appears in an error.
 */
export async function createServiceAccountUser(
  context: EnvironmentContext,
  admin: TestUser,
  options: ServiceAccountUserOptions,
): Promise<TestUser> {
  const { namespace, name } = options;
  if (!namespace || !name) {
    throw new EnvtestError(
      'ERR_ENVTEST_INVALID_OPTIONS',
      'serviceAccountUser needs a namespace and a name',
    );
  }
  const expirationSeconds = options.expirationSeconds ?? DEFAULT_TOKEN_SECONDS;
  if (!Number.isInteger(expirationSeconds) || expirationSeconds < 600) {
    throw new EnvtestError(
      'ERR_ENVTEST_INVALID_OPTIONS',
      `serviceAccountUser's expirationSeconds must be an integer of at least 600 (kube-apiserver's minimum), got ${String(expirationSeconds)}`,
    );
  }
  const clientset = await admin.clientset();
  const what = `ServiceAccount ${namespace}/${name}`;
  await provision(`creating ${what}`, async () => {
    try {
      await clientset.coreV1
        .serviceAccounts(namespace)
        .create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } });
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
    }
  });
  const request = await provision(`requesting a token of ${what}`, () =>
    clientset.rest
      .post()
      .namespace(namespace)
      .resource('serviceaccounts')
      .name(name)
      .subresource('token')
      .body({
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        spec: { expirationSeconds },
      } satisfies TokenRequest)
      .execute<TokenRequest>(),
  );
  const token = request.status?.token;
  if (typeof token !== 'string' || token === '') {
    throw new EnvtestError(
      'ERR_ENVTEST_PROVISION_FAILED',
      `the TokenRequest of ${what} returned no token`,
    );
  }
  return new EnvironmentUser(context, {
    name: `system:serviceaccount:${namespace}:${name}`,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`],
    credentials: { token },
  });
}

function checkUserOptions(options: TestUserOptions): void {
  const invalid = (message: string) => new EnvtestError('ERR_ENVTEST_INVALID_OPTIONS', message);
  const given = [options.rules, options.role, options.clusterRole].filter(
    (value) => value !== undefined,
  );
  if (given.length > 1) {
    throw invalid('user() takes one of rules, role and clusterRole, not several');
  }
  if (options.role !== undefined && options.namespace === undefined) {
    throw invalid(`user({ role: '${options.role}' }) needs the namespace of that Role`);
  }
  if (options.name !== undefined && options.name.trim() === '') {
    throw invalid('user() needs a non-empty name');
  }
  if (options.rules !== undefined && options.rules.length === 0) {
    throw invalid('user({ rules }) needs at least one rule');
  }
}

/**
 * bindUser creates the Role/ClusterRole and binding the options ask for and returns a rule the
 * user now holds (undefined when the bound role has none to check).
 */
async function bindUser(
  context: EnvironmentContext,
  clientset: Clientset,
  user: string,
  suffix: string,
  options: TestUserOptions,
): Promise<PolicyRule | undefined> {
  // A default name is unique already; a given one gets the suffix (two tests may both say "viewer").
  const objectName = options.name === undefined ? user : `k-envtest-${safeName(user)}-${suffix}`;
  const { namespace } = options;
  const subjects = [{ kind: 'User', apiGroup: RBAC_GROUP, name: user }];
  const rbac = clientset.rbacV1;
  if (options.rules) {
    const rules = options.rules.map((rule) => ({ ...rule }));
    if (namespace !== undefined) {
      await provision(`creating Role ${namespace}/${objectName}`, () =>
        rbac.roles(namespace).create({
          apiVersion: `${RBAC_GROUP}/v1`,
          kind: 'Role',
          metadata: { name: objectName, namespace },
          rules,
        }),
      );
      await provision(`creating RoleBinding ${namespace}/${objectName}`, () =>
        rbac.roleBindings(namespace).create({
          apiVersion: `${RBAC_GROUP}/v1`,
          kind: 'RoleBinding',
          metadata: { name: objectName, namespace },
          roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: objectName },
          subjects,
        }),
      );
    } else {
      trackClusterScoped(context, clientset, objectName, { role: true });
      await provision(`creating ClusterRole ${objectName}`, () =>
        rbac.clusterRoles().create({
          apiVersion: `${RBAC_GROUP}/v1`,
          kind: 'ClusterRole',
          metadata: { name: objectName },
          rules,
        }),
      );
      await provision(`creating ClusterRoleBinding ${objectName}`, () =>
        rbac.clusterRoleBindings().create({
          apiVersion: `${RBAC_GROUP}/v1`,
          kind: 'ClusterRoleBinding',
          metadata: { name: objectName },
          roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: objectName },
          subjects,
        }),
      );
    }
    return rules[0];
  }
  const roleRef =
    options.role !== undefined
      ? { apiGroup: RBAC_GROUP, kind: 'Role', name: options.role }
      : { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: options.clusterRole! };
  const bound: { readonly rules?: PolicyRule[] | undefined } = await provision(
    `reading ${roleRef.kind} ${roleRef.name}`,
    async () =>
      roleRef.kind === 'Role'
        ? await rbac.roles(namespace).get(roleRef.name)
        : await rbac.clusterRoles().get(roleRef.name),
  );
  if (namespace !== undefined) {
    await provision(`creating RoleBinding ${namespace}/${objectName}`, () =>
      rbac.roleBindings(namespace).create({
        apiVersion: `${RBAC_GROUP}/v1`,
        kind: 'RoleBinding',
        metadata: { name: objectName, namespace },
        roleRef,
        subjects,
      }),
    );
  } else {
    trackClusterScoped(context, clientset, objectName, { role: false });
    await provision(`creating ClusterRoleBinding ${objectName}`, () =>
      rbac.clusterRoleBindings().create({
        apiVersion: `${RBAC_GROUP}/v1`,
        kind: 'ClusterRoleBinding',
        metadata: { name: objectName },
        roleRef,
        subjects,
      }),
    );
  }
  return bound.rules?.find((rule) => rule.verbs.length > 0);
}

/**
 * trackClusterScoped registers, before they exist, the deletion of a ClusterRoleBinding (and
 * ClusterRole) named `name` in the handle's closeables: a half-made user is cleaned up too.
 */
function trackClusterScoped(
  context: EnvironmentContext,
  clientset: Clientset,
  name: string,
  options: { readonly role: boolean },
): void {
  context.closeables.push({
    what: `the ClusterRoleBinding${options.role ? ' and ClusterRole' : ''} ${name}`,
    close: async () => {
      const ignoreMissing = (error: unknown) => {
        if (!isNotFound(error)) throw error;
      };
      await clientset.rbacV1.clusterRoleBindings().delete(name).catch(ignoreMissing);
      if (options.role) await clientset.rbacV1.clusterRoles().delete(name).catch(ignoreMissing);
    },
  });
}

/**
 * waitUntilAllowed asks kube-apiserver (SubjectAccessReview) until its authorizer grants `rule` to
 * the user: RBAC is served from an informer cache, so a binding takes effect a moment after it
 * was written.
 */
async function waitUntilAllowed(
  clientset: Clientset,
  who: { readonly user: string; readonly groups: readonly string[] },
  rule: PolicyRule,
  namespace: string | undefined,
): Promise<void> {
  const verb = rule.verbs[0]!;
  const spec = rule.nonResourceURLs?.length
    ? { nonResourceAttributes: { path: rule.nonResourceURLs[0]!.replace(/\*$/, ''), verb } }
    : {
        resourceAttributes: {
          verb,
          group: rule.apiGroups?.[0] ?? '',
          resource: rule.resources?.[0] ?? '*',
          ...(rule.resourceNames?.length ? { name: rule.resourceNames[0] } : {}),
          ...(namespace !== undefined ? { namespace } : {}),
        },
      };
  const deadline = Date.now() + RBAC_TIMEOUT_MS;
  for (;;) {
    const review = await provision(`checking the RBAC of user ${who.user}`, () =>
      clientset.authorizationV1.subjectAccessReviews().create({
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: { user: who.user, groups: [...who.groups, 'system:authenticated'], ...spec },
      }),
    );
    if (review.status?.allowed) return;
    if (Date.now() > deadline) {
      throw new EnvtestError(
        'ERR_ENVTEST_PROVISION_FAILED',
        `the RBAC bound to user ${who.user} did not take effect within ${RBAC_TIMEOUT_MS} ms (${JSON.stringify(spec)} is still denied: ${review.status?.reason ?? 'no reason given'})`,
      );
    }
    await sleep(20);
  }
}

/** provision runs one API step, turning a failure into ERR_ENVTEST_PROVISION_FAILED naming it. */
async function provision<T>(what: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    const detail = error instanceof ApiError ? error.message : String(error);
    throw new EnvtestError('ERR_ENVTEST_PROVISION_FAILED', `${what} failed: ${detail}`, {
      cause: error,
    });
  }
}

/** safeName turns a user name into a piece of an RBAC object name (lower case, DNS-ish). */
function safeName(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9.-]+/g, '-')
      .replace(/^[-.]+|[-.]+$/g, '')
      .slice(0, 200) || 'user'
  );
}
