import {
  copyFromPod,
  copyToPod,
  type CopyFromPodResult,
  type CopyOptions,
} from '../streams/copy.js';
import { execInPod } from './pod-remote-command.js';
import { checkStreamCall, type SubresourceTarget } from './subresource-target.js';

function checkCopy(
  target: SubresourceTarget,
  name: string,
  source: string,
  destination: string,
  options: CopyOptions,
  call: string,
): void {
  checkStreamCall(target, 'exec', call, name, options);
  target.arguments.path(source, 'source', call);
  target.arguments.path(destination, 'destination', call);
}

/**
 * copyIntoPod copies the local `source` to `destination` in pod `name` (a tar into `tar -x` over
 * exec); see `ResourceClient.copyToPod`.
 */
export async function copyIntoPod(
  target: SubresourceTarget,
  name: string,
  source: string,
  destination: string,
  options: CopyOptions,
): Promise<void> {
  checkCopy(target, name, source, destination, options, 'copy to pod');
  return copyToPod((exec) => execInPod(target, name, exec), source, destination, options);
}

/**
 * copyOutOfPod copies `source` in pod `name` to the local `destination` (`tar c` over exec, with
 * a safe extraction); see `ResourceClient.copyFromPod`.
 */
export async function copyOutOfPod(
  target: SubresourceTarget,
  name: string,
  source: string,
  destination: string,
  options: CopyOptions,
): Promise<CopyFromPodResult> {
  checkCopy(target, name, source, destination, options, 'copy from pod');
  return copyFromPod((exec) => execInPod(target, name, exec), source, destination, options);
}
