import {
  openRemoteCommand,
  remoteCommandParams,
  type AttachOptions,
  type ExecOptions,
  type RemoteCommandSession,
  type RemoteCommandStreams,
} from '../streams/remote-command.js';
import type { RequestOptions } from './request-options.js';
import { checkStreamCall, type SubresourceTarget } from './subresource-target.js';

/** handshakeOptions are what bounds opening the session: its signal and `timeoutMs`. */
function handshakeOptions(options: RemoteCommandStreams): RequestOptions {
  return {
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
  };
}

/**
 * execInPod runs `options.command` in the container of pod `name` (`pods/exec`), after checking
 * the verb and the arguments; see `ResourceClient.exec`.
 */
export async function execInPod(
  target: SubresourceTarget,
  name: string,
  options: ExecOptions,
): Promise<RemoteCommandSession> {
  checkStreamCall(target, 'exec', 'exec', name, options);
  target.arguments.command(options.command, 'exec');
  const request = target.get(name, 'exec', handshakeOptions(options));
  return openRemoteCommand(request.params(remoteCommandParams(options, options.command)), options);
}

/**
 * attachToPod connects to the streams of pod `name`'s running container (`pods/attach`); see
 * `ResourceClient.attach`.
 */
export async function attachToPod(
  target: SubresourceTarget,
  name: string,
  options: AttachOptions,
): Promise<RemoteCommandSession> {
  checkStreamCall(target, 'attach', 'attach', name, options);
  const request = target.get(name, 'attach', handshakeOptions(options));
  return openRemoteCommand(request.params(remoteCommandParams(options, undefined)), options);
}
