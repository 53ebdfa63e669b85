import type { Readable, Writable } from 'node:stream';
import type { RequestBuilder, Status } from '@k/rest';
import type { WebSocketConnection } from '@k/rest/websocket';
import { RemoteCommandError } from '../errors.js';
import { BoundedText, MAX_QUOTED_BYTES } from './bounded-text.js';
import { ChannelMux } from './channel-mux.js';
import { keepAliveOf, type KeepAliveOptions } from './keep-alive.js';

/** The channel protocols exec and attach speak, newest first. */
export const REMOTE_COMMAND_PROTOCOLS = ['v5.channel.k8s.io', 'v4.channel.k8s.io'] as const;

/**
 * RemoteCommandProtocol is a channel protocol of exec and attach: `v5.channel.k8s.io` (stdin
 * can be closed) or `v4.channel.k8s.io` (what servers before the WebSocket translator offer).
 */
export type RemoteCommandProtocol = (typeof REMOTE_COMMAND_PROTOCOLS)[number];

// The channels of the protocol (k8s.io/apimachinery/pkg/util/remotecommand).
const STDIN = 0;
const STDOUT = 1;
const STDERR = 2;
const ERROR = 3;
const RESIZE = 4;

/** TerminalSize is a terminal's size in character cells. */
export interface TerminalSize {
  columns: number;
  rows: number;
}

/**
 * RemoteCommandStreams say which streams an exec or attach has (kubectl's `-i`, `-t`), and how
 * its WebSocket is kept alive ({@link KeepAliveOptions}).
 */
export interface RemoteCommandStreams extends KeepAliveOptions {
  /** stdin opens the command's standard input (default false). */
  stdin?: boolean | undefined;
  /** stdout streams its standard output (default true). */
  stdout?: boolean | undefined;
  /** stderr streams its standard error (default true; never with `tty`, which merges it). */
  stderr?: boolean | undefined;
  /** tty gives the command a terminal: stderr comes on stdout, and `resize` works (default false). */
  tty?: boolean | undefined;
  /** terminalSize is sent right after the connection opens (with `tty`). */
  terminalSize?: TerminalSize | undefined;
  /** container names the container; required when the pod has more than one. */
  container?: string | undefined;
  /** protocols are the channel protocols offered, preferred first (default v5, then v4). */
  protocols?: readonly RemoteCommandProtocol[] | undefined;
  /** signal ends the session: the connection is closed and `result` rejects with the reason. */
  signal?: AbortSignal | undefined;
  /** timeoutMs bounds opening the connection (the handshake), not the session. */
  timeoutMs?: number | undefined;
}

/** ExecOptions are the options of `pods(ns).exec()`: the command, and its streams. */
export interface ExecOptions extends RemoteCommandStreams {
  /** command is the program and its arguments, run without a shell (`['sh', '-c', '…']` for one). */
  command: readonly string[];
}

/** AttachOptions are the options of `pods(ns).attach()`. */
export type AttachOptions = RemoteCommandStreams;

/** ExecResult is how a command ended: its exit code (0 on success). */
export interface ExecResult {
  exitCode: number;
  /** status is the Status the server sent (absent when it closed without one: success). */
  status: Status | undefined;
}

/**
 * RemoteCommandSession is a running exec or attach. Read `stdout`/`stderr` (back-pressure goes
 * to the container: an unread stdout pauses the command once buffers fill), write `stdin` and
 * `end()` it to close the command's stdin (v5 only; on v4 the server cannot be told), and await
 * `result`. Output streams end when the session does, cleanly even when it failed: `result`
 * carries the failure.
 */
export interface RemoteCommandSession {
  /** protocol is the channel protocol the server chose. */
  readonly protocol: RemoteCommandProtocol;
  readonly stdin: Writable | null;
  readonly stdout: Readable | null;
  readonly stderr: Readable | null;
  /**
   * result resolves with the exit code (a `NonZeroExitCode` Status is a result too), or rejects
   * with a `RemoteCommandError` (another failure Status), a `WebSocketError` (the connection
   * broke before a status came) or the signal's reason.
   */
  readonly result: Promise<ExecResult>;
  /** resize tells the terminal's new size (with `tty`; ignored otherwise). */
  resize(size: TerminalSize): void;
  /** close ends the session now (the command may go on in the container; `result` settles). */
  close(): void;
}

/**
 * exitResult reads the error channel's Status: Success is exit code 0, `NonZeroExitCode` gives
 * the code from its `ExitCode` cause, anything else is a {@link RemoteCommandError}.
 */
export function exitResult(status: Status): ExecResult {
  if (status.status === 'Success') return { exitCode: 0, status };
  if (status.reason === 'NonZeroExitCode') {
    const cause = status.details?.causes?.find((candidate) => candidate.reason === 'ExitCode');
    const exitCode = Number(cause?.message);
    if (Number.isInteger(exitCode) && exitCode >= 0) return { exitCode, status };
  }
  throw new RemoteCommandError(`remote command failed: ${quoted(status)}`, status);
}

/** quoted is what an error quotes of a Status: its message or reason, bounded and printable. */
function quoted(status: Status): string {
  const text = new BoundedText(MAX_QUOTED_BYTES, 'head');
  const said = status.message ?? status.reason;
  // A slice first: a Status can be megabytes, and a character is at least a byte.
  text.push(typeof said === 'string' ? said.slice(0, MAX_QUOTED_BYTES + 1) : '');
  return text.text() || 'unknown error';
}

/** MAX_STATUS_BYTES bounds the error channel's Status kept whole (a kubelet's is under 1 KiB). */
export const MAX_STATUS_BYTES = 64 * 1024;

/**
 * parseStatus reads the error channel's Status. One larger than {@link MAX_STATUS_BYTES} is not
 * parsed nor kept: a Failure quoting its first bytes stands for it.
 */
export function parseStatus(payload: Buffer): Status {
  if (payload.length > MAX_STATUS_BYTES) {
    const head = new BoundedText(MAX_QUOTED_BYTES, 'head');
    head.push(payload.subarray(0, MAX_QUOTED_BYTES + 1));
    return {
      status: 'Failure',
      message: `a status of ${payload.length} bytes, more than ${MAX_STATUS_BYTES}: ${head.text()}`,
    };
  }
  try {
    const decoded: unknown = JSON.parse(payload.toString('utf8'));
    if (typeof decoded === 'object' && decoded !== null) return decoded;
  } catch {
    // Not JSON: the text is the message, as v1 of the protocol sent it.
  }
  return { status: 'Failure', message: payload.toString('utf8') };
}

/** remoteCommandParams are the query keys of an exec or attach. */
export function remoteCommandParams(
  options: RemoteCommandStreams,
  command: readonly string[] | undefined,
): Record<string, string | boolean | string[] | undefined> {
  const tty = options.tty ?? false;
  return {
    container: options.container || undefined,
    command: command ? [...command] : undefined,
    stdin: options.stdin ?? false,
    stdout: options.stdout ?? true,
    stderr: tty ? false : (options.stderr ?? true),
    tty,
  };
}

/**
 * openRemoteCommand opens `builder` (the exec or attach request) as a WebSocket and wires the
 * channels into a {@link RemoteCommandSession}.
 */
export async function openRemoteCommand(
  builder: RequestBuilder,
  options: RemoteCommandStreams,
): Promise<RemoteCommandSession> {
  const protocols = options.protocols ?? REMOTE_COMMAND_PROTOCOLS;
  const connection = await builder.webSocket({ protocols, ...keepAliveOf(options) });
  return new Session(connection, options);
}

class Session implements RemoteCommandSession {
  readonly protocol: RemoteCommandProtocol;
  readonly stdin: Writable | null;
  readonly stdout: Readable | null;
  readonly stderr: Readable | null;
  readonly result: Promise<ExecResult>;
  readonly #mux: ChannelMux;
  readonly #tty: boolean;

  constructor(connection: WebSocketConnection, options: RemoteCommandStreams) {
    const mux = new ChannelMux(connection);
    this.#mux = mux;
    this.protocol = connection.protocol as RemoteCommandProtocol;
    const tty = options.tty ?? false;
    this.#tty = tty;
    this.stdin = options.stdin ? mux.writable(STDIN, this.protocol === 'v5.channel.k8s.io') : null;
    this.stdout = (options.stdout ?? true) ? mux.readable(STDOUT) : null;
    this.stderr = !tty && (options.stderr ?? true) ? mux.readable(STDERR) : null;
    let status: Status | undefined;
    mux.onMessage(ERROR, (payload) => {
      if (payload.length > 0) status ??= parseStatus(payload);
    });
    const signal = options.signal;
    this.result = mux.closed.then((close) => {
      if (signal?.aborted) throw signal.reason;
      if (status) return exitResult(status);
      if (close.error) throw close.error;
      // Closed without a status: success, as client-go reads it.
      return { exitCode: 0, status: undefined };
    });
    // A session nobody awaits must not crash the process with an unhandled rejection.
    this.result.catch(() => undefined);
    if (tty && options.terminalSize) this.resize(options.terminalSize);
  }

  resize(size: TerminalSize): void {
    if (!this.#tty) return;
    this.#mux.send(
      RESIZE,
      Buffer.from(JSON.stringify({ Width: size.columns, Height: size.rows }), 'utf8'),
    );
  }

  close(): void {
    this.#mux.connection.close();
  }
}
