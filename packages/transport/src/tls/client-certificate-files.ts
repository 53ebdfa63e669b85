import { readFile } from 'node:fs/promises';
import type { ClientCertificate } from '../auth/credential-provider.js';
import {
  expectDuration,
  expectOptionalFunction,
  expectOptions,
  expectString,
} from '../checks/argument-checks.js';
import { readTlsFile, validateClientCertificate } from './pem.js';

/** client-go re-reads a file-based key pair at most once a second, at handshake time. */
const CLIENT_CERTIFICATE_RELOAD_INTERVAL_MS = 1_000;

/** ClientCertificateFilesOptions configure {@link ClientCertificateFiles}. */
export interface ClientCertificateFilesOptions {
  reloadIntervalMs?: number | undefined;
  now?: (() => number) | undefined;
}

/**
 * ClientCertificateFiles is a client certificate and key given as two files (and no data), which
 * something may rotate: like client-go's `ReloadTLSFiles`, the pair is re-read when a new
 * connection is made and the last read is older than a second. A pair that fails to read or does
 * not match (a half-written rotation) keeps the last good one. Connections already open keep the
 * certificate they were made with.
 *
 * Concurrency: concurrent {@link current} calls share one read.
 */
export class ClientCertificateFiles {
  readonly certificateFile: string;
  readonly keyFile: string;
  readonly #intervalMs: number;
  readonly #now: () => number;
  #current: ClientCertificate | undefined;
  #checkedAt = Number.NEGATIVE_INFINITY;
  #reading: Promise<ClientCertificate> | undefined;

  constructor(
    certificateFile: string,
    keyFile: string,
    options: ClientCertificateFilesOptions = {},
  ) {
    const where = 'ClientCertificateFiles';
    expectString(certificateFile, where, 'certificateFile');
    expectString(keyFile, where, 'keyFile');
    checkClientCertificateFilesOptions(options, where);
    this.certificateFile = certificateFile;
    this.keyFile = keyFile;
    this.#intervalMs = options.reloadIntervalMs ?? CLIENT_CERTIFICATE_RELOAD_INTERVAL_MS;
    this.#now = options.now ?? Date.now;
  }

  /** loadNow reads and validates the pair synchronously; a failure fails transport creation. */
  loadNow(): ClientCertificate {
    const certificate = readTlsFile(this.certificateFile, 'client-certificate');
    const key = readTlsFile(this.keyFile, 'client-key');
    validateClientCertificate(certificate, key, `${this.certificateFile}, ${this.keyFile}`);
    this.#current = { certificate, key };
    this.#checkedAt = this.#now();
    return this.#current;
  }

  /** current returns the pair to present on a new connection, re-reading it when due. */
  current(): Promise<ClientCertificate> {
    const current = this.#current;
    if (current && this.#now() < this.#checkedAt + this.#intervalMs) {
      return Promise.resolve(current);
    }
    this.#reading ??= this.#reload().finally(() => {
      this.#reading = undefined;
    });
    return this.#reading;
  }

  async #reload(): Promise<ClientCertificate> {
    this.#checkedAt = this.#now();
    try {
      const [certificate, key] = await Promise.all([
        readFile(this.certificateFile, 'utf8'),
        readFile(this.keyFile, 'utf8'),
      ]);
      const current = this.#current;
      if (current && current.certificate === certificate && current.key === key) return current;
      validateClientCertificate(certificate, key, `${this.certificateFile}, ${this.keyFile}`);
      this.#current = { certificate, key };
      return this.#current;
    } catch (error) {
      if (this.#current) return this.#current;
      throw error;
    }
  }
}

/** checkClientCertificateFilesOptions checks {@link ClientCertificateFilesOptions}. */
export function checkClientCertificateFilesOptions(
  options: unknown,
  where: string,
  what = 'options',
): void {
  const checked = expectOptions(options, where, what) as Record<string, unknown>;
  expectDuration(checked.reloadIntervalMs, where, `${what}.reloadIntervalMs`, 0);
  expectOptionalFunction(checked.now, where, `${what}.now`);
}
