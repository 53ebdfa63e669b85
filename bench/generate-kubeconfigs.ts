import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** KubeconfigSetOptions shape the generated files. */
export interface KubeconfigSetOptions {
  /** files is how many files to write (default 3). */
  files?: number;
  /** entries is how many clusters, users and contexts each file defines (default 1,000). */
  entries?: number;
  /**
   * overlap is how many names each file shares with the previous one (default 0). kubectl
   * keeps the first file's entry; @kubernetes/client-node refuses duplicates across files.
   */
  overlap?: number;
  /** seed makes the random content repeatable (default 1). */
  seed?: number;
}

/** KubeconfigSet is a directory of generated kubeconfig files; `remove` deletes it. */
export interface KubeconfigSet {
  directory: string;
  paths: string[];
  totalBytes: number;
  remove(): void;
}

/**
 * writeKubeconfigSet writes realistic kubeconfig files: clusters with ~1.5 KB of base64 CA
 * data, users with service-account-style tokens, exec plugins (EKS/GKE style), client
 * certificates or OIDC, and contexts with namespaces, formatted as kubectl writes them.
 */
export function writeKubeconfigSet(options: KubeconfigSetOptions = {}): KubeconfigSet {
  const { files = 3, entries = 1000, overlap = 0, seed = 1 } = options;
  const random = mulberry32(seed);
  const directory = mkdtempSync(join(tmpdir(), 'k-bench-'));
  mkdirSync(directory, { recursive: true });
  const paths: string[] = [];
  let totalBytes = 0;
  for (let file = 0; file < files; file++) {
    const first = file * (entries - overlap);
    const text = kubeconfigText(first, entries, file, random);
    const path = join(directory, `config-${String.fromCharCode(97 + file)}.yaml`);
    writeFileSync(path, text);
    paths.push(path);
    totalBytes += Buffer.byteLength(text);
  }
  return {
    directory,
    paths,
    totalBytes,
    remove: () => rmSync(directory, { recursive: true, force: true }),
  };
}

function kubeconfigText(first: number, count: number, file: number, random: () => number): string {
  const id = (index: number) => String(index).padStart(5, '0');
  const lines: string[] = ['apiVersion: v1', 'kind: Config', 'clusters:'];
  for (let index = first; index < first + count; index++) {
    lines.push(`- cluster:`);
    lines.push(`    certificate-authority-data: ${pemBase64(random, 'CERTIFICATE', 790)}`);
    lines.push(
      `    server: https://${hex(random, 8)}.gr7.eu-west-${1 + (index % 3)}.eks.amazonaws.com`,
    );
    if (index % 10 === 0) lines.push(`    tls-server-name: kubernetes.default.svc`);
    if (index % 25 === 0) lines.push(`    proxy-url: http://proxy.internal:3128`);
    lines.push(`  name: cluster-${id(index)}`);
  }
  lines.push('contexts:');
  for (let index = first; index < first + count; index++) {
    lines.push(`- context:`);
    lines.push(`    cluster: cluster-${id(index)}`);
    lines.push(`    namespace: team-${index % 40}`);
    lines.push(`    user: user-${id(index)}`);
    lines.push(`  name: context-${id(index)}`);
  }
  lines.push(`current-context: context-${id(first)}`);
  lines.push('preferences: {}');
  lines.push('users:');
  for (let index = first; index < first + count; index++) {
    lines.push(`- name: user-${id(index)}`);
    lines.push('  user:');
    const kind = index % 10;
    if (kind < 6) {
      lines.push(`    token: eyJhbGciOiJSUzI1NiIsImtpZCI6Ik${base64url(random, 600)}`);
    } else if (kind < 8) {
      lines.push('    exec:');
      lines.push('      apiVersion: client.authentication.k8s.io/v1beta1');
      lines.push('      args:');
      for (const arg of [
        '--region',
        'eu-west-1',
        'eks',
        'get-token',
        '--cluster-name',
        `cluster-${id(index)}`,
      ])
        lines.push(`      - ${arg}`);
      lines.push('      command: aws');
      lines.push('      env:');
      lines.push('      - name: AWS_PROFILE');
      lines.push(`        value: profile-${file}`);
      lines.push('      interactiveMode: IfAvailable');
      lines.push('      provideClusterInfo: false');
    } else if (kind < 9) {
      lines.push(`    client-certificate-data: ${pemBase64(random, 'CERTIFICATE', 820)}`);
      lines.push(`    client-key-data: ${pemBase64(random, 'RSA PRIVATE KEY', 1190)}`);
    } else {
      lines.push('    auth-provider:');
      lines.push('      config:');
      lines.push('        client-id: kubernetes');
      lines.push(`        id-token: eyJhbGciOiJSUzI1NiJ9.${base64url(random, 500)}`);
      lines.push('        idp-issuer-url: https://dex.example.com');
      lines.push(`        refresh-token: ${hex(random, 32)}`);
      lines.push('      name: oidc');
    }
  }
  return `${lines.join('\n')}\n`;
}

function randomBytes(random: () => number, length: number): Buffer {
  const bytes = Buffer.alloc(length);
  for (let index = 0; index < length; index++) bytes[index] = Math.floor(random() * 256);
  return bytes;
}

/** pemBase64 is how kubeconfigs hold certificates: base64 of a PEM block of `length` bytes. */
function pemBase64(random: () => number, label: string, length: number): string {
  const body = randomBytes(random, length).toString('base64').replace(/.{64}/g, '$&\n');
  const pem = `-----BEGIN ${label}-----\n${body.trimEnd()}\n-----END ${label}-----\n`;
  return Buffer.from(pem).toString('base64');
}

function base64url(random: () => number, length: number): string {
  return randomBytes(random, length).toString('base64url');
}

function hex(random: () => number, length: number): string {
  return randomBytes(random, length).toString('hex');
}

/** mulberry32 is a tiny seeded PRNG: the same seed writes the same files. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}
