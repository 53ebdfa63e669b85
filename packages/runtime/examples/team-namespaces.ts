/**
 * The runtime README's second operator, on a cluster-scoped kind of your own. For each
 * TeamNamespace (examples/team-namespaces-crd.yaml; its client is k-gen's, in generated/) it
 * creates a Namespace of the same name and, in it, the RoleBinding `team-owners` that grants the
 * ClusterRole `edit` to the TeamNamespace's `spec.owners`; it puts the RoleBinding back when
 * someone deletes or changes it, and reports a `Ready` condition in the TeamNamespace's status.
 *
 * No finalizer: the Namespace and the RoleBinding carry an owner reference to the TeamNamespace
 * (`controller: true`; a cluster-scoped owner may own cluster-scoped and namespaced objects), so
 * the garbage collector deletes them when it goes, also when no replica of the operator runs
 * then. A finalizer is for what owner references cannot reach (outside the cluster).
 *
 * A Namespace of that name that someone else made is left alone (`Ready` False, reason
 * `NamespaceTaken`), never adopted. Replicas elect a leader on the Lease `team-namespaces` in
 * `--lease-namespace`; only the leader reconciles. `/healthz` and `/readyz` are served on
 * `--port` (default 8081), `/metrics` on `--metrics-port` (default 8080, loopback); 0 picks a
 * free port. SIGTERM or Ctrl-C stops it gracefully. The permissions it needs:
 * examples/team-namespaces-rbac.yaml.
 *
 *   kubectl apply -f packages/runtime/examples/team-namespaces-crd.yaml
 *   npx tsx packages/runtime/examples/team-namespaces.ts [--kubeconfig=PATH] [--context=NAME] \
 *     [--lease-namespace=default] [--port=8081] [--metrics-port=8080]
 */
import { ignoreAlreadyExists, type ApplyConfiguration, type OwnerReference } from '@k/clientset';
import type { Namespace } from '@k/clientset/core/v1';
import type { RoleBinding } from '@k/clientset/rbac/v1';
import { Manager, isApplied, isControlledBy, setStatusCondition } from '@k/runtime';
import { createTeamNamespacesClient, type TeamNamespace } from './generated/team-namespace-v1.js';

const option = (name: string): string | undefined =>
  process.argv.find((argument) => argument.startsWith(`--${name}=`))?.slice(name.length + 3);

const FIELD_MANAGER = 'team-namespaces';
const WRITE = { fieldManager: FIELD_MANAGER };
/** APPLY are the options of its server-side applies: its values win over another manager's. */
const APPLY = { fieldManager: FIELD_MANAGER, force: true };
const MANAGED_BY = { 'app.kubernetes.io/managed-by': FIELD_MANAGER };
const ROLE_BINDING = 'team-owners';
const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** controllerReference makes `team` the controlling owner (controller-runtime's SetControllerReference). */
function controllerReference(team: TeamNamespace): OwnerReference {
  return {
    apiVersion: 'k.example/v1',
    kind: 'TeamNamespace',
    name: team.metadata?.name ?? '',
    uid: team.metadata?.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** ownedNamespace is the Namespace `team` asks for: its name, controlled by it. */
function ownedNamespace(team: TeamNamespace): Namespace {
  const name = team.metadata?.name ?? '';
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name, labels: MANAGED_BY, ownerReferences: [controllerReference(team)] },
  };
}

/** ownersBinding is the RoleBinding `team` asks for in its Namespace. */
function ownersBinding(team: TeamNamespace): ApplyConfiguration<RoleBinding> {
  return {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'RoleBinding',
    metadata: {
      name: ROLE_BINDING,
      namespace: team.metadata?.name ?? '',
      labels: MANAGED_BY,
      ownerReferences: [controllerReference(team)],
    },
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: 'edit' },
    subjects: team.spec.owners.map((owner) => ({
      apiGroup: RBAC_GROUP,
      kind: 'User',
      name: owner,
    })),
  };
}

async function main(): Promise<void> {
  const manager = await Manager.create({
    clientsetOptions: { kubeconfig: option('kubeconfig'), context: option('context') },
    leaderElection: { namespace: option('lease-namespace') ?? 'default', name: 'team-namespaces' },
    probes: { port: Number(option('port') ?? 8081) },
    metricsServer: { port: Number(option('metrics-port') ?? 8080) },
    onListening: (address) => console.log(`listening ${address.serves} ${address.url}`),
  });
  const { clientset } = manager;
  const recorder = manager.eventRecorder({ reportingController: 'k.example/team-namespaces' });
  // Shared informers, so the reconciler reads what the controller watches: every Namespace (to
  // see one someone else made) and only the RoleBindings this operator labelled.
  const namespaces = manager.informerFor(clientset.coreV1.namespaces());
  const roleBindings = manager.informerFor(clientset.rbacV1.roleBindings(''), {
    labelSelector: MANAGED_BY,
  });

  manager
    .controller('team-namespaces')
    .for(createTeamNamespacesClient(clientset.rest))
    // A Namespace has its TeamNamespace's name, so any change of one (also of one someone else
    // made, which has no owner reference) maps to the request of that name, cluster-scoped.
    .watches(namespaces, (namespace) => [{ namespace: '', name: namespace.metadata?.name ?? '' }])
    // A RoleBinding changed or deleted: its controlling TeamNamespace is reconciled.
    .owns(roleBindings)
    .withOptions({ recorder })
    .complete(async (team, context) => {
      const name = team.metadata?.name ?? '';
      const setReady = async (status: 'True' | 'False', reason: string, message: string) => {
        const conditions = [...(team.status?.conditions ?? [])];
        const update = { type: 'Ready', status, reason, message };
        const observedGeneration = team.metadata?.generation;
        if (!setStatusCondition(conditions, { ...update, observedGeneration })) return; // no change
        const configuration: ApplyConfiguration<TeamNamespace> = {
          apiVersion: 'k.example/v1',
          kind: 'TeamNamespace',
          metadata: { name },
          status: { conditions },
        };
        // Remembered: the next reconcile gets this status, not the cache's older copy.
        context.remember(await context.client.applyStatus(configuration, APPLY));
      };

      // Created when the cache has none; a create that finds the name taken reads it live (made
      // meanwhile, by this operator or someone else: not in the cache yet).
      const namespaceClient = clientset.coreV1.namespaces();
      const namespace =
        namespaces.lister.getByName(name) ??
        (await ignoreAlreadyExists(namespaceClient.create(ownedNamespace(team), WRITE))) ??
        (await namespaceClient.get(name));
      if (!isControlledBy(namespace, team)) {
        return setReady('False', 'NamespaceTaken', `namespace ${name} is not this TeamNamespace's`);
      }
      if (namespace.metadata?.deletionTimestamp) {
        // Its deletion (a change of a watched Namespace) reconciles this TeamNamespace again.
        return setReady('False', 'NamespaceTerminating', `namespace ${name} is being deleted`);
      }
      const binding = ownersBinding(team);
      if (!isApplied(roleBindings.lister.getByName(ROLE_BINDING, name), binding)) {
        await clientset.rbacV1.roleBindings(name).apply(binding, APPLY);
        recorder.normal(
          team,
          'OwnersBound',
          `${binding.subjects?.length} owner(s) may edit ${name}`,
        );
      }
      await setReady('True', 'Provisioned', `namespace ${name} with its owners bound to edit`);
    });

  await manager.run(); // until SIGTERM or SIGINT; exit code 0 after a clean stop, 1 after a failure
  console.log('stopped');
}

main().catch((error: unknown) => {
  console.error(`team-namespaces: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
