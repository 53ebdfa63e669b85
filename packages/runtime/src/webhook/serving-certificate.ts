import { X509Certificate, createPrivateKey } from 'node:crypto';
import { watch, type FSWatcher } from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { RuntimeError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { MetricsSink } from '../metrics/metrics-sink.js';
import { createSelfSignedCertificate } from './self-signed-certificate.js';

/**
 * WebhookCertificateOptions say where a webhook server's serving certificate comes from:
 * - `{ certDir, certName?, keyName? }`: files `tls.crt` and `tls.key` (by default) in a directory,
 *   as a Secret mounted by the kubelet or cert-manager's csi driver has them;
 * - `{ certFile, keyFile }`: two files anywhere;
 * - `{ selfSigned: { hosts } }`: a key and a certificate made when the server is made, for `hosts`
 *   (local use and tests; the server's `certificateAuthority` gives its PEM and `caBundle` at
 *   once, so the webhooks can be installed before the server starts).
 * Files are read at start and again whenever they change (the directory is watched and polled).
 */
export type WebhookCertificateOptions =
  | {
      readonly certDir: string;
      readonly certName?: string | undefined;
      readonly keyName?: string | undefined;
    }
  | { readonly certFile: string; readonly keyFile: string }
  | { readonly selfSigned: { readonly hosts: readonly string[] } };

/** DEFAULT_CERT_DIR is controller-runtime's default webhook certificate directory. */
export const DEFAULT_CERT_DIR = '/tmp/k8s-webhook-server/serving-certs';

/** CertificatePair is a certificate (chain) and its private key, PEM, checked to belong together. */
export interface CertificatePair {
  readonly certPem: string;
  readonly keyPem: string;
  /** fingerprint256 of the leaf certificate, to tell a new pair from the one served. */
  readonly fingerprint256: string;
  readonly validTo: string;
}

// A certificate chain or key file is a few KiB; anything far larger is not one.
const MAX_FILE_BYTES = 1 << 20;

/** certificateFiles are the two files of `options`, or undefined for a self-signed certificate. */
function certificateFiles(
  options: WebhookCertificateOptions,
): { certFile: string; keyFile: string } | undefined {
  if ('selfSigned' in options) return undefined;
  if ('certFile' in options) return { certFile: options.certFile, keyFile: options.keyFile };
  return {
    certFile: join(options.certDir, options.certName ?? 'tls.crt'),
    keyFile: join(options.certDir, options.keyName ?? 'tls.key'),
  };
}

async function readBounded(path: string, what: string): Promise<string> {
  try {
    const handle = await open(path, 'r');
    try {
      const { size } = await handle.stat();
      if (size > MAX_FILE_BYTES) {
        throw new RuntimeError(
          'ERR_RUNTIME_WEBHOOK_CERTIFICATE',
          `the webhook ${what} file ${path} is ${size} bytes, more than a ${what} can be (${MAX_FILE_BYTES})`,
        );
      }
      return await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (RuntimeError.isInstance(error)) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new RuntimeError(
      'ERR_RUNTIME_WEBHOOK_CERTIFICATE',
      `the webhook ${what} file ${path} could not be read (${code})`,
      { cause: error },
    );
  }
}

/**
 * checkPair parses `certPem` (its first certificate is the leaf) and `keyPem` and checks that the
 * key is the leaf's. A failure is ERR_RUNTIME_WEBHOOK_CERTIFICATE naming the file (`certFile`,
 * `keyFile`), never the key's content.
 */
function checkPair(
  certPem: string,
  keyPem: string,
  files: { certFile: string; keyFile: string },
): CertificatePair {
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(certPem);
  } catch {
    throw new RuntimeError(
      'ERR_RUNTIME_WEBHOOK_CERTIFICATE',
      `the webhook certificate file ${files.certFile} holds no PEM certificate that parses`,
    );
  }
  let key: ReturnType<typeof createPrivateKey>;
  try {
    key = createPrivateKey(keyPem);
  } catch {
    // The parser's own message is not kept: it could quote the text it failed on.
    throw new RuntimeError(
      'ERR_RUNTIME_WEBHOOK_CERTIFICATE',
      `the webhook key file ${files.keyFile} holds no PEM private key that parses`,
    );
  }
  if (!leaf.checkPrivateKey(key)) {
    throw new RuntimeError(
      'ERR_RUNTIME_WEBHOOK_CERTIFICATE',
      `the private key in ${files.keyFile} is not the key of the certificate in ${files.certFile}`,
    );
  }
  return { certPem, keyPem, fingerprint256: leaf.fingerprint256, validTo: leaf.validTo };
}

/** ServingCertificateOptions configure a {@link ServingCertificate}. */
export interface ServingCertificateOptions {
  logger: Logger;
  metrics: MetricsSink;
  /** pollIntervalMs is how often the files are read again besides watching them (default 10 s, as controller-runtime's certwatcher). */
  pollIntervalMs?: number | undefined;
}

/**
 * ServingCertificate is a webhook server's certificate: made once when self-signed, else read from
 * its files and read again whenever they change. cert-manager and the kubelet rotate a mounted
 * Secret by swapping a `..data` symlink in its directory, so the directory is watched (fs.watch)
 * and, since watches miss events on some file systems, also polled. A new pair that reads and
 * matches goes to `onChange`; one that does not is logged and counted
 * (`certwatcher_read_certificate_errors_total`) and the current pair stays.
 */
export class ServingCertificate {
  readonly #files: { certFile: string; keyFile: string } | undefined;
  readonly #options: ServingCertificateOptions;
  readonly #reads;
  readonly #readErrors;
  #current: CertificatePair | undefined;
  /** selfSigned is the made certificate's authority, when self-signed. */
  readonly selfSigned: { caPem: string; caBundle: string } | undefined;

  constructor(source: WebhookCertificateOptions, options: ServingCertificateOptions) {
    this.#options = options;
    this.#files = certificateFiles(source);
    this.#reads = options.metrics.counter({
      name: 'certwatcher_read_certificate_total',
      help: 'Total number of certificate reads',
      labelNames: [],
    });
    this.#readErrors = options.metrics.counter({
      name: 'certwatcher_read_certificate_errors_total',
      help: 'Total number of certificate read errors',
      labelNames: [],
    });
    if ('selfSigned' in source) {
      const made = createSelfSignedCertificate({ hosts: source.selfSigned.hosts });
      this.#current = checkPair(made.certPem, made.keyPem, {
        certFile: '(self-signed)',
        keyFile: '(self-signed)',
      });
      this.selfSigned = { caPem: made.caPem, caBundle: made.caBundle };
    }
  }

  /** current is the pair being served, once loaded. */
  get current(): CertificatePair | undefined {
    return this.#current;
  }

  /** load reads and checks the files (a self-signed pair is already made); rejects with ERR_RUNTIME_WEBHOOK_CERTIFICATE. */
  async load(): Promise<CertificatePair> {
    if (!this.#files) return this.#current!;
    this.#reads.inc({});
    try {
      this.#current = await this.#read(this.#files);
    } catch (error) {
      this.#readErrors.inc({});
      throw error;
    }
    return this.#current;
  }

  async #read(files: { certFile: string; keyFile: string }): Promise<CertificatePair> {
    // Both read at once; the certificate's failure is the one reported when both fail, every time.
    const [cert, key] = await Promise.allSettled([
      readBounded(files.certFile, 'certificate'),
      readBounded(files.keyFile, 'key'),
    ]);
    if (cert.status === 'rejected') throw cert.reason;
    if (key.status === 'rejected') throw key.reason;
    return checkPair(cert.value, key.value, files);
  }

  /**
   * watch reads the files again when their directories change and every `pollIntervalMs` until
   * `signal` aborts, and calls `onChange` with each new pair that checks out.
   */
  watch(signal: AbortSignal, onChange: (pair: CertificatePair) => void): void {
    const files = this.#files;
    if (!files || signal.aborted) return;
    let reading = false;
    let again = false;
    const reload = async (): Promise<void> => {
      if (reading) {
        again = true;
        return;
      }
      reading = true;
      try {
        do {
          again = false;
          await this.#reload(files, onChange);
        } while (again && !signal.aborted);
      } finally {
        reading = false;
      }
    };
    const watchers: FSWatcher[] = [];
    for (const directory of new Set([dirname(files.certFile), dirname(files.keyFile)])) {
      try {
        const watcher = watch(directory, { persistent: false }, () => void reload());
        watcher.on('error', (error) =>
          this.#options.logger.warn('webhook certificate directory watch failed; polling only', {
            directory,
            error: error.message,
          }),
        );
        watchers.push(watcher);
      } catch (error) {
        this.#options.logger.warn('webhook certificate directory cannot be watched; polling only', {
          directory,
          error: (error as Error).message,
        });
      }
    }
    const timer = setInterval(() => void reload(), this.#options.pollIntervalMs ?? 10_000);
    timer.unref();
    signal.addEventListener(
      'abort',
      () => {
        clearInterval(timer);
        for (const watcher of watchers) watcher.close();
      },
      { once: true },
    );
  }

  async #reload(
    files: { certFile: string; keyFile: string },
    onChange: (pair: CertificatePair) => void,
  ): Promise<void> {
    this.#reads.inc({});
    let pair: CertificatePair;
    try {
      pair = await this.#read(files);
    } catch (error) {
      this.#readErrors.inc({});
      this.#options.logger.error('webhook certificate not reloaded; serving the previous one', {
        error: (error as Error).message,
      });
      return;
    }
    const current = this.#current;
    if (current && current.certPem === pair.certPem && current.keyPem === pair.keyPem) return;
    this.#current = pair;
    this.#options.logger.info('webhook certificate reloaded', {
      fingerprint256: pair.fingerprint256,
      validTo: pair.validTo,
    });
    onChange(pair);
  }
}
