/**
 * INSTALL_HINT_HELP is client-go's explanation appended to "executable … not found" (after two
 * newlines), verbatim.
 */
export const INSTALL_HINT_HELP = `It looks like you are trying to use a client-go credential plugin that is not installed.

To learn more about this feature, consult the documentation available at:
      https://kubernetes.io/docs/reference/access-authn-authz/authentication/#client-go-credential-plugins`;

/**
 * InstallHintLimiter is client-go's `sometimes`: it allows the install help at most `threshold`
 * times per `intervalMs` window (client-go: 10 per hour, per authenticator). The window starts
 * at the first call and restarts at the first call after it ends. Not thread-safe by design
 * (JavaScript has one).
 */
export class InstallHintLimiter {
  readonly #threshold: number;
  readonly #intervalMs: number;
  readonly #now: () => number;
  #count = 0;
  #windowStart: number | undefined;

  constructor(now: () => number, threshold = 10, intervalMs = 60 * 60 * 1000) {
    this.#now = now;
    this.#threshold = threshold;
    this.#intervalMs = intervalMs;
  }

  /** allow reports whether the help may be shown now, and counts it if so. */
  allow(): boolean {
    const now = this.#now();
    if (this.#windowStart === undefined || now - this.#windowStart >= this.#intervalMs) {
      this.#windowStart = now;
      this.#count = 0;
    }
    if (this.#count >= this.#threshold) return false;
    this.#count++;
    return true;
  }

  /**
   * notFoundMessage is client-go's message for a missing plugin: `exec: executable <cmd> not
   * found` (then `: <detail>` when given), then (when allowed) the help and the kubeconfig's
   * install hint.
   */
  notFoundMessage(command: string, installHint: string | undefined, detail?: string): string {
    let message = `exec: executable ${command} not found${detail ? `: ${detail}` : ''}`;
    if (this.allow()) {
      message += `\n\n${INSTALL_HINT_HELP}`;
      if (installHint) message += `\n\n${installHint}`;
    }
    return message;
  }
}
