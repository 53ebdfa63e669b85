// The YAML guards @k/config applies to kubeconfigs, for the layers above that read other YAML
// (manifests): alias expansion limits, and parser messages that never quote the source text.
export {
  MAX_ALIASED_NODES,
  aliasesRepeatTooMuch,
  safeYamlMessage,
} from './model/parse-kubeconfig.js';

// The parts of the yaml library those layers parse with, from the copy @k/config's build carries
// (docs/decisions/0015), so that a program holds one yaml, not two, and not yaml's Node build.
export { Document, LineCounter, YAMLSeq, parseAllDocuments, visit } from 'yaml';
