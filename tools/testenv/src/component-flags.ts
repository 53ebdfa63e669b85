import { join } from 'node:path';
import { SERVICE_CLUSTER_IP_RANGE, type Pki } from './pki.js';

/** ComponentPorts are the loopback ports the components listen on. */
export interface ComponentPorts {
  readonly etcd: number;
  readonly etcdPeer: number;
  readonly apiServer: number;
  readonly controllerManager: number;
  readonly scheduler: number;
  /** kwok's kubelet API (exec, logs, attach, port-forward of every fake node) and health. */
  readonly kubelet: number;
}

/** The service-account issuer (and default API audience) of every control plane. */
export const SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc.cluster.local';

/**
 * etcdFlags returns etcd's command line for a single-member cluster on 127.0.0.1 (client and peer
 * URL alike) with its data in `<runDir>/etcd`; `extra` is appended, so it wins.
 */
export function etcdFlags(
  runDir: string,
  ports: ComponentPorts,
  extra: readonly string[] = [],
): string[] {
  const clientUrl = `http://127.0.0.1:${ports.etcd}`;
  const peerUrl = `http://127.0.0.1:${ports.etcdPeer}`;
  return [
    '--name=k-testenv',
    `--data-dir=${join(runDir, 'etcd')}`,
    `--listen-client-urls=${clientUrl}`,
    `--advertise-client-urls=${clientUrl}`,
    `--listen-peer-urls=${peerUrl}`,
    `--initial-advertise-peer-urls=${peerUrl}`,
    `--initial-cluster=k-testenv=${peerUrl}`,
    '--initial-cluster-state=new',
    // A test cluster does not need durability; fsync dominates etcd's latency on small disks.
    '--unsafe-no-fsync=true',
    '--log-level=warn',
    ...extra,
  ];
}

/** ApiServerFlagOptions are the inputs of {@link apiServerFlags}. */
export interface ApiServerFlagOptions {
  readonly runDir: string;
  readonly ports: ComponentPorts;
  readonly pki: Pki;
  readonly tokenFilePath: string;
  /** Whether kube-controller-manager runs (it owns garbage collection and default ServiceAccounts). */
  readonly controllerManager: boolean;
  /** Where the audit policy is and where the audit log goes (JSON lines). */
  readonly auditPolicyPath: string;
  readonly auditLogPath: string;
  readonly extra?: readonly string[];
}

/**
 * apiServerFlags returns kube-apiserver's command line: bound to 127.0.0.1, client certificates of
 * the test CA plus the static token file, RBAC, service-account tokens signed with the run's key,
 * request-header authentication for the aggregation layer, and garbage collection only when the
 * controller-manager runs. `extra` is appended, so it wins.
 */
export function apiServerFlags(options: ApiServerFlagOptions): string[] {
  const { runDir, ports, pki } = options;
  return [
    `--etcd-servers=http://127.0.0.1:${ports.etcd}`,
    '--bind-address=127.0.0.1',
    `--secure-port=${ports.apiServer}`,
    // A loopback bind gives no default route to pick an address from; `none` because Endpoints may
    // not hold loopback IPs (the `kubernetes` Service still exists, without endpoints).
    '--advertise-address=127.0.0.1',
    '--endpoint-reconciler-type=none',
    `--cert-dir=${join(runDir, 'apiserver-certs')}`,
    `--tls-cert-file=${pki.serverCertPath}`,
    `--tls-private-key-file=${pki.serverKeyPath}`,
    `--client-ca-file=${pki.caCertPath}`,
    `--token-auth-file=${options.tokenFilePath}`,
    '--authorization-mode=RBAC',
    `--service-cluster-ip-range=${SERVICE_CLUSTER_IP_RANGE}`,
    `--service-account-issuer=${SERVICE_ACCOUNT_ISSUER}`,
    `--service-account-key-file=${pki.serviceAccountPublicKeyPath}`,
    `--service-account-signing-key-file=${pki.serviceAccountKeyPath}`,
    // The aggregation layer (and the controller-manager's delegated authentication) needs the
    // request-header CA; it is a separate CA so a client certificate cannot assert headers.
    `--requestheader-client-ca-file=${pki.frontProxyCaCertPath}`,
    '--requestheader-allowed-names=front-proxy-client',
    '--requestheader-username-headers=X-Remote-User',
    '--requestheader-group-headers=X-Remote-Group',
    '--requestheader-extra-headers-prefix=X-Remote-Extra-',
    `--proxy-client-cert-file=${pki.frontProxyClientCertPath}`,
    `--proxy-client-key-file=${pki.frontProxyClientKeyPath}`,
    '--allow-privileged=true',
    // kwok serves the kubelet API of every fake node on the node's InternalIP (loopback).
    '--kubelet-preferred-address-types=InternalIP',
    `--kubelet-certificate-authority=${pki.caCertPath}`,
    `--kubelet-client-certificate=${pki.apiServerKubeletClientCertPath}`,
    `--kubelet-client-key=${pki.apiServerKubeletClientKeyPath}`,
    // The garbage collector runs in the controller-manager; without one, orphan and foreground
    // deletions would wait for it forever, so the finalizers are not added at all.
    `--enable-garbage-collector=${options.controllerManager}`,
    '--profiling=false',
    `--audit-policy-file=${options.auditPolicyPath}`,
    `--audit-log-path=${options.auditLogPath}`,
    '--audit-log-format=json',
    // Each event is written before the request's handler returns, so a test can count them.
    '--audit-log-mode=blocking',
    // On SIGTERM, end open watches at once: otherwise the HTTP server's shutdown waits for them up
    // to its 60 s timeout, and every stop or restart with a client watching ran into SIGKILL.
    '--shutdown-watch-termination-grace-period=5s',
    // Without the controller-manager no namespace gets a `default` ServiceAccount to admit Pods with.
    ...(options.controllerManager ? [] : ['--disable-admission-plugins=ServiceAccount']),
    ...(options.extra ?? []),
  ];
}

/**
 * controllerManagerFlags returns kube-controller-manager's command line: the admin kubeconfig for
 * its client and delegated authentication, no leader election, health on 127.0.0.1, all default
 * controllers with the run's service-account key and CA. `extra` is appended, so it wins.
 */
export function controllerManagerFlags(
  runDir: string,
  ports: ComponentPorts,
  pki: Pki,
  kubeconfigPath: string,
  extra: readonly string[] = [],
): string[] {
  return [
    ...kubeClientComponentFlags(
      kubeconfigPath,
      ports.controllerManager,
      join(runDir, 'controller-manager-certs'),
    ),
    `--service-account-private-key-file=${pki.serviceAccountKeyPath}`,
    `--root-ca-file=${pki.caCertPath}`,
    `--cluster-signing-cert-file=${pki.caCertPath}`,
    `--cluster-signing-key-file=${pki.caKeyPath}`,
    `--service-cluster-ip-range=${SERVICE_CLUSTER_IP_RANGE}`,
    '--use-service-account-credentials=false',
    '--controllers=*',
    // The defaults (20 requests/s, bursts of 30) throttle the namespace controller: emptying a
    // deleted namespace took about 5 s. controller-runtime's envtest clients use the same values.
    '--kube-api-qps=1000',
    '--kube-api-burst=2000',
    ...extra,
  ];
}

/**
 * schedulerFlags returns kube-scheduler's command line: the admin kubeconfig for its client and
 * delegated authentication, no leader election, health on 127.0.0.1. `extra` is appended, so it
 * wins.
 */
export function schedulerFlags(
  runDir: string,
  ports: ComponentPorts,
  kubeconfigPath: string,
  extra: readonly string[] = [],
): string[] {
  return [
    ...kubeClientComponentFlags(kubeconfigPath, ports.scheduler, join(runDir, 'scheduler-certs')),
    ...extra,
  ];
}

/**
 * kubeClientComponentFlags are what kube-controller-manager and kube-scheduler share: the admin
 * kubeconfig for their client and delegated authentication, no leader election (one replica),
 * health on 127.0.0.1 at `securePort` with a self-signed serving certificate in `certDir`.
 */
function kubeClientComponentFlags(
  kubeconfigPath: string,
  securePort: number,
  certDir: string,
): string[] {
  return [
    `--kubeconfig=${kubeconfigPath}`,
    `--authentication-kubeconfig=${kubeconfigPath}`,
    `--authorization-kubeconfig=${kubeconfigPath}`,
    '--leader-elect=false',
    '--bind-address=127.0.0.1',
    `--secure-port=${securePort}`,
    `--cert-dir=${certDir}`,
    '--profiling=false',
  ];
}

/** NODE_ADDRESS is the InternalIP of every fake node, where kwok serves their kubelet API. */
export const NODE_ADDRESS = '127.0.0.1';
/** The annotation that marks a Node as one kwok manages. */
export const KWOK_NODE_ANNOTATION = 'kwok.x-k8s.io/node';

/** KwokFlagOptions are the inputs of {@link kwokFlags}. */
export interface KwokFlagOptions {
  readonly ports: ComponentPorts;
  readonly pki: Pki;
  readonly kubeconfigPath: string;
  /** kwok's stages (several YAML documents). */
  readonly stagesPath: string;
  /** Kinds kwok reads from the cluster instead of its config (ClusterExec, Logs, …). */
  readonly crdKinds: readonly string[];
  readonly extra?: readonly string[];
}

/**
 * kwokFlags returns kwok's command line: the admin kubeconfig, the given stages, only Nodes
 * annotated `kwok.x-k8s.io/node=fake` managed, and the kubelet API over TLS on
 * {@link NODE_ADDRESS}, which becomes each node's InternalIP and kubelet endpoint. `extra` is
 * appended, so it wins.
 */
export function kwokFlags(options: KwokFlagOptions): string[] {
  const { ports, pki } = options;
  return [
    `--kubeconfig=${options.kubeconfigPath}`,
    `--config=${options.stagesPath}`,
    `--manage-nodes-with-annotation-selector=${KWOK_NODE_ANNOTATION}=fake`,
    `--node-ip=${NODE_ADDRESS}`,
    `--node-port=${ports.kubelet}`,
    `--server-address=${NODE_ADDRESS}:${ports.kubelet}`,
    `--tls-cert-file=${pki.kubeletServingCertPath}`,
    `--tls-private-key-file=${pki.kubeletServingKeyPath}`,
    `--enable-crds=${options.crdKinds.join(',')}`,
    // Renew a Lease per node (every quarter of this): without one the node-lifecycle controller
    // marks the nodes NotReady after its grace period, as the status heartbeat is 10 minutes apart.
    '--node-lease-duration-seconds=40',
    // Pod IPs are never routed; a range apart from the service range keeps them distinguishable.
    '--cidr=10.244.0.0/16',
    ...(options.extra ?? []),
  ];
}
