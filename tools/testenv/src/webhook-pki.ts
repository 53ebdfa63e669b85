import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm } from 'node:fs/promises';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ControlPlaneError } from './errors.js';
import { generateKey, servingExtensions, signCertificate } from './pki.js';

const execFileAsync = promisify(execFile);

/** WEBHOOK_SANS are the subject alternative names every webhook serving certificate has. */
export const WEBHOOK_SANS = ['IP:127.0.0.1', 'DNS:localhost'];

/** WebhookPkiOptions configure {@link WebhookPki.create}. */
export interface WebhookPkiOptions {
  /** Extra host names or IP addresses for the serving certificate, beside {@link WEBHOOK_SANS}. */
  readonly hosts?: readonly string[] | undefined;
  /** The openssl executable (default `openssl` on PATH). */
  readonly openssl?: string | undefined;
}

// A DNS name (labels, `*.` allowed first) or an IP; nothing that could end an openssl config value.
const HOST_NAME =
  /^(\*\.)?[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/**
 * webhookSubjectAltNames turns extra hosts into openssl `subjectAltName` entries after
 * {@link WEBHOOK_SANS}: an IP address becomes `IP:`, anything else `DNS:`; duplicates are dropped.
 * Throws INVALID_OPTIONS for a host that is neither an IP address nor a DNS name.
 */
export function webhookSubjectAltNames(hosts: readonly string[] = []): string[] {
  const names = new Set(WEBHOOK_SANS);
  for (const host of hosts) {
    if (isIP(host)) names.add(`IP:${host}`);
    else if (host.length <= 253 && HOST_NAME.test(host)) names.add(`DNS:${host.toLowerCase()}`);
    else
      throw new ControlPlaneError(
        'INVALID_OPTIONS',
        `webhook host ${JSON.stringify(host.slice(0, 100))} is neither an IP address nor a DNS name`,
      );
  }
  return [...names];
}

/**
 * WebhookPki is the PKI of webhook servers a test runs on loopback for kube-apiserver to call: a
 * CA of its own (separate from the control plane's CA, as a cluster's webhook CA is) and one
 * serving certificate it signs, for `IP:127.0.0.1`, `DNS:localhost` and any extra hosts. The
 * files are `ca.crt`, `ca.key`, `tls.crt` and `tls.key` in `dir` (mode 0700); ECDSA P-256 keys,
 * certificates valid 10 days, made with the openssl CLI. {@link WebhookPki.rotate} replaces the
 * serving pair from the same CA, so a `caBundle` given to kube-apiserver stays valid.
 */
export class WebhookPki {
  readonly dir: string;
  readonly caCertPath: string;
  /** The CA certificate, PEM: what `caBundle` fields carry (base64 encoded). */
  readonly caPem: string;
  /** The serving certificate, PEM, rewritten by {@link rotate}. */
  readonly certPath: string;
  /** The serving key, PEM, rewritten by {@link rotate}. */
  readonly keyPath: string;
  /** The serving certificate's subject alternative names, openssl syntax (`IP:…`, `DNS:…`). */
  readonly subjectAltNames: readonly string[];
  #certPem = '';
  #keyPem = '';
  readonly #openssl: string;
  #rotation: Promise<void> = Promise.resolve();

  private constructor(dir: string, caPem: string, subjectAltNames: string[], openssl: string) {
    this.dir = dir;
    this.caCertPath = join(dir, 'ca.crt');
    this.caPem = caPem;
    this.certPath = join(dir, 'tls.crt');
    this.keyPath = join(dir, 'tls.key');
    this.subjectAltNames = subjectAltNames;
    this.#openssl = openssl;
  }

  /**
   * WebhookPki.create makes `dir` (mode 0700), a new CA in it and a first serving certificate.
   * Throws INVALID_OPTIONS for a bad host and PKI_FAILED when openssl fails.
   */
  static async create(dir: string, options: WebhookPkiOptions = {}): Promise<WebhookPki> {
    const subjectAltNames = webhookSubjectAltNames(options.hosts);
    const openssl = options.openssl ?? 'openssl';
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const caKeyPath = join(dir, 'ca.key');
    await generateKey(caKeyPath, openssl);
    await runOpenssl(openssl, dir, [
      'req',
      '-x509',
      '-new',
      '-key',
      caKeyPath,
      '-sha256',
      '-days',
      '10',
      '-subj',
      `/CN=k-webhook-ca-${randomBytes(4).toString('hex')}`,
      '-out',
      join(dir, 'ca.crt'),
    ]);
    const pki = new WebhookPki(
      dir,
      await readFile(join(dir, 'ca.crt'), 'utf8'),
      subjectAltNames,
      openssl,
    );
    await pki.rotate();
    return pki;
  }

  /** certPem is the serving certificate this object wrote last. */
  get certPem(): string {
    return this.#certPem;
  }

  /** keyPem is the serving key this object wrote last. */
  get keyPem(): string {
    return this.#keyPem;
  }

  /**
   * rotate issues a new serving key and certificate (new serial) from the same CA and moves them
   * over {@link keyPath} and then {@link certPath}, each by rename, so a reader sees a whole old
   * file or a whole new one, never a part. Between the two renames the key is already new and the
   * certificate still old: a server that reloads should, like controller-runtime's certwatcher,
   * keep its current pair when the two do not match and load again on the certificate's change.
   * Rotations run one at a time. Throws PKI_FAILED.
   */
  rotate(): Promise<void> {
    const next = this.#rotation.then(() => this.#issue());
    this.#rotation = next.catch(() => undefined);
    return next;
  }

  async #issue(): Promise<void> {
    const work = join(this.dir, `.next-${randomBytes(6).toString('hex')}`);
    await mkdir(work, { mode: 0o700 });
    try {
      const keyPath = join(work, 'tls.key');
      const certPath = join(work, 'tls.crt');
      await generateKey(keyPath, this.#openssl);
      await signCertificate({
        caCertPath: this.caCertPath,
        caKeyPath: join(this.dir, 'ca.key'),
        keyPath,
        subject: '/CN=localhost',
        extensions: servingExtensions(this.subjectAltNames),
        certPath,
        openssl: this.#openssl,
      });
      const [certPem, keyPem] = await Promise.all([
        readFile(certPath, 'utf8'),
        readFile(keyPath, 'utf8'),
      ]);
      // Same directory, same file system: each rename replaces its target atomically.
      await rename(keyPath, this.keyPath);
      await rename(certPath, this.certPath);
      this.#certPem = certPem;
      this.#keyPem = keyPem;
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }
}

async function runOpenssl(openssl: string, cwd: string, args: string[]): Promise<void> {
  try {
    await execFileAsync(openssl, args, { cwd });
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new ControlPlaneError(
      'PKI_FAILED',
      missing
        ? `openssl is required for webhook certificates and was not found (${openssl})`
        : `openssl ${args[0]} failed in ${cwd}: ${(error as Error).message}`,
      { step: 'webhook pki', logTail: (error as { stderr?: string }).stderr ?? '', cause: error },
    );
  }
}
