import { ExecPluginError } from '../errors.js';

/** TerminalState is what {@link isInteractive} needs to know about the process's standard input. */
export interface TerminalState {
  /** isTerminal says whether standard input is a terminal (`process.stdin.isTTY`). */
  isTerminal: boolean;
  /**
   * stdinUnavailable marks standard input as taken by the program itself (for example it reads
   * a manifest from `-`); a string also says why. client-go's `StdinUnavailable(Message)`.
   */
  stdinUnavailable?: boolean | string;
}

/**
 * isInteractive decides whether a plugin run is interactive (gets our standard input), as
 * client-go does: `Never` → false; `IfAvailable` → stdin is a terminal and available; `Always` →
 * true, or `ERR_TRANSPORT_EXEC_INTERACTIVE_MODE` when stdin is not a terminal or is unavailable; any other
 * value (including none for a v1 plugin) → `unknown interactiveMode: "<v>"`. Messages start with
 * `exec plugin cannot support interactive mode: `. Pure.
 */
export function isInteractive(
  mode: string | undefined,
  terminal: TerminalState,
  command: string,
): boolean {
  const unavailable =
    terminal.stdinUnavailable !== undefined && terminal.stdinUnavailable !== false;
  switch (mode) {
    case 'Never':
      return false;
    case 'IfAvailable':
      return terminal.isTerminal && !unavailable;
    case 'Always':
      if (!terminal.isTerminal) throw interactiveError('standard input is not a terminal', command);
      if (unavailable) {
        const reason =
          typeof terminal.stdinUnavailable === 'string' && terminal.stdinUnavailable
            ? `: ${terminal.stdinUnavailable}`
            : '';
        throw interactiveError(`standard input is unavailable${reason}`, command);
      }
      return true;
    default:
      throw interactiveError(`unknown interactiveMode: ${JSON.stringify(mode ?? '')}`, command);
  }
}

function interactiveError(reason: string, command: string): ExecPluginError {
  return new ExecPluginError(
    'ERR_TRANSPORT_EXEC_INTERACTIVE_MODE',
    `exec plugin cannot support interactive mode: ${reason}`,
    { command },
  );
}
