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
