// The YAML guards @k/config applies to kubeconfigs, for the layers above that read other YAML
// (manifests): alias expansion limits, and parser messages that never quote the source text.
export {
  MAX_ALIASED_NODES,
  aliasesRepeatTooMuch,
  safeYamlMessage,
} from './model/parse-kubeconfig.js';
