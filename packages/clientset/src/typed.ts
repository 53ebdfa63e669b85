// @k/clientset/typed: what typed clients are made of — group version definitions, the verb
// method sets a descriptor selects, and API version helpers — for generated code and code that
// builds clients for its own resources.
export {
  GENERATED_KUBERNETES_VERSION,
  GROUP_VERSIONS,
  GroupVersionClients,
} from './generated/groups.js';
export { createGroupVersionClient } from './group/group-version-client.js';
export type { GroupVersionDefinition } from './group/group-version-client.js';
export type {
  AttachMethods,
  ExecMethods,
  LogMethods,
  PortForwardMethods,
  ResourceClientBase,
  ScaleMethods,
  StatusMethods,
  SubresourceVerbs,
  VerbMethods,
  Verbs,
} from './resource/typed-resource-client.js';
export type { ResourceVerb } from './resource/resource-descriptor.js';
export { apiVersionOf, parseApiVersion, resourceName } from './resource/resource-descriptor.js';
