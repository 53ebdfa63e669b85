export {
  MODULE_KINDS,
  WORKSPACE_ROOT,
  assertBuilt,
  programSource,
  runNodeProgram,
  startNodeProgram,
} from './node-program.js';
export type {
  ModuleKind,
  NodeProgram,
  NodeProgramOptions,
  NodeProgramResult,
  RunningNodeProgram,
} from './node-program.js';
export {
  installPackedPackages,
  kubectl,
  runCommand,
  startCommand,
  userEnvironment,
} from './installed-project.js';
export type {
  CommandExit,
  CommandResult,
  InstallOptions,
  InstalledProject,
  RunCommandOptions,
  RunningCommand,
  StartCommandOptions,
} from './installed-project.js';
export { buildUserProject } from './user-project.js';
export { caught } from './caught.js';
export { eventually, inParallel } from './eventually.js';
export { respondJson, startTestServer } from './test-server.js';
export type { TestServer, TestServerArrival, TestServerHandler } from './test-server.js';
export { createTestCertificates } from './test-certificates.js';
export type { TestCertificates } from './test-certificates.js';
export { startHttpConnectProxy, startSocks5Proxy } from './proxy-servers.js';
export type { TestProxy } from './proxy-servers.js';
export { singleContextKubeconfig } from './single-context-kubeconfig.js';
export type { KubeconfigCluster } from './single-context-kubeconfig.js';
