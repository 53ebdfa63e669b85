import type { TlsSettings } from '@k/config';
import type { ClientCertificate } from '../auth/credential-provider.js';
import { expectTlsSettings } from '../checks/argument-checks.js';
import { TransportError } from '../errors.js';
import {
  ClientCertificateFiles,
  checkClientCertificateFilesOptions,
  type ClientCertificateFilesOptions,
} from './client-certificate-files.js';
import {
  fingerprint,
  parseCertificateAuthority,
  readTlsFile,
  validateClientCertificate,
} from './pem.js';

/**
 * TlsOptions are a server's TLS settings loaded and validated: the CA bundle (absent: the
 * system roots), the static client certificate or the reloading certificate files, the server
 * name to send and verify, and `identity`, a digest of all of it for the connection pool key.
 */
export interface TlsOptions {
  /** ca is PEM; when set it is the only trust root, as in client-go. */
  ca?: string | undefined;
  serverName?: string | undefined;
  insecure: boolean;
  clientCertificate?: ClientCertificate | undefined;
  clientCertificateFiles?: ClientCertificateFiles | undefined;
  /** identity distinguishes TLS settings without holding any of their secrets. */
  identity: string;
}

const decoder = new TextDecoder();

/**
 * loadTlsOptions reads and validates `settings` (client-go's `TLSConfigFor` rules): data wins
 * over a file for the CA, the certificate and the key independently; a named file that cannot be
 * read is `ERR_TRANSPORT_FILE_READ`; bad PEM or a mismatched pair is `ERR_TRANSPORT_TLS`; a CA
 * together with `insecure` is refused (`specifying a root certificates file with the insecure
 * flag is not allowed`). When both certificate and key are files (no data) they are re-read as
 * they rotate ({@link ClientCertificateFiles}). Synchronous: it runs once per transport.
 */
export function loadTlsOptions(
  settings: TlsSettings,
  fileOptions: ClientCertificateFilesOptions = {},
): TlsOptions {
  expectTlsSettings(settings, 'loadTlsOptions', 'settings');
  checkClientCertificateFilesOptions(fileOptions, 'loadTlsOptions', 'fileOptions');
  const hasCa = Boolean(settings.caData?.length || settings.caFile);
  if (settings.insecure && hasCa) {
    throw new TransportError(
      'ERR_TRANSPORT_TLS',
      'specifying a root certificates file with the insecure flag is not allowed',
    );
  }
  const options: TlsOptions = { insecure: settings.insecure, identity: '' };
  if (settings.serverName) options.serverName = settings.serverName;

  if (settings.caData?.length) {
    options.ca = parseCertificateAuthority(
      decoder.decode(settings.caData),
      'certificate-authority-data',
    );
  } else if (settings.caFile) {
    options.ca = parseCertificateAuthority(
      readTlsFile(settings.caFile, 'certificate-authority'),
      `"${settings.caFile}"`,
    );
  }

  const hasCertificate = Boolean(settings.certData?.length || settings.certFile);
  const hasKey = Boolean(settings.keyData?.length || settings.keyFile);
  if (hasCertificate !== hasKey) {
    throw new TransportError(
      'ERR_TRANSPORT_TLS',
      hasCertificate
        ? 'a client certificate needs a client key (client-key or client-key-data)'
        : 'a client key needs a client certificate (client-certificate or client-certificate-data)',
    );
  }
  let certificateIdentity = '';
  if (hasCertificate) {
    if (
      !settings.certData?.length &&
      !settings.keyData?.length &&
      settings.certFile &&
      settings.keyFile
    ) {
      const files = new ClientCertificateFiles(settings.certFile, settings.keyFile, fileOptions);
      files.loadNow();
      options.clientCertificateFiles = files;
      certificateIdentity = `files:${settings.certFile}\u0000${settings.keyFile}`;
    } else {
      const certificate = settings.certData?.length
        ? decoder.decode(settings.certData)
        : readTlsFile(settings.certFile as string, 'client-certificate');
      const key = settings.keyData?.length
        ? decoder.decode(settings.keyData)
        : readTlsFile(settings.keyFile as string, 'client-key');
      validateClientCertificate(
        certificate,
        key,
        settings.certData?.length ? 'client-certificate-data' : `"${settings.certFile}"`,
      );
      options.clientCertificate = { certificate, key };
      certificateIdentity = `data:${fingerprint(certificate, key)}`;
    }
  }
  options.identity = fingerprint(
    options.ca,
    options.serverName,
    String(options.insecure),
    certificateIdentity,
  );
  return options;
}
