import {
  openPortForwardStream,
  startPortForwarder,
  type PortForwarder,
  type PortForwardOptions,
  type PortForwardStream,
  type PortForwardStreamOptions,
  type PortMapping,
} from '../streams/port-forward.js';
import { keepAliveOf } from '../streams/keep-alive.js';
import { checkStreamCall, type SubresourceTarget } from './subresource-target.js';

/**
 * openPodPortForward opens one connection to `port` of pod `name` (`pods/portforward`); see
 * `ResourceClient.portForwardStream`.
 */
export async function openPodPortForward(
  target: SubresourceTarget,
  name: string,
  port: number,
  options: PortForwardStreamOptions,
): Promise<PortForwardStream> {
  checkStreamCall(target, 'portforward', 'port-forward', name, options);
  target.arguments.port(port, 'port-forward');
  return openPortForwardStream(
    target.get(name, 'portforward', { signal: options.signal }),
    port,
    options,
  );
}

/**
 * forwardPodPorts listens on local ports and forwards each connection to pod `name`; see
 * `ResourceClient.portForward`.
 */
export async function forwardPodPorts(
  target: SubresourceTarget,
  name: string,
  ports: readonly (number | PortMapping)[],
  options: PortForwardOptions,
): Promise<PortForwarder> {
  checkStreamCall(target, 'portforward', 'port-forward', name, options);
  const mappings = target.arguments.portMappings(ports, 'port-forward');
  return startPortForwarder(mappings, options, (remote) =>
    openPodPortForward(target, name, remote, {
      ...(options.signal ? { signal: options.signal } : {}),
      ...keepAliveOf(options),
    }),
  );
}
