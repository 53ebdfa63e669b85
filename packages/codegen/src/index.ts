// @k/codegen: what `k-gen crd` does, as functions (the TypeScript emitter itself: `@k/codegen/emit`).
export { crdFileName, generateCrdClients, parseCrds } from './crd/generate-crd.js';
export type { CrdGeneratorOptions, CustomResourceDefinition } from './crd/generate-crd.js';
export { staleFiles, writeGeneratedFiles } from './generated-files.js';
export type { GeneratedFiles } from './generated-files.js';
