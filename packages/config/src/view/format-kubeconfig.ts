import { checkKubeconfig, fail } from '../argument-checks.js';

import { stringify } from 'yaml';
import type { Kubeconfig } from '../model/kubeconfig.js';
import { compareBytes, encodeKubeconfig } from './encode-kubeconfig.js';

/** KubeconfigOutputFormat is a `kubectl config view -o` format this package can print. */
export type KubeconfigOutputFormat = 'json' | 'yaml';

// Go's encoding/json escapes these for safe embedding in HTML; JSON.stringify does not.
const GO_JSON_ESCAPES: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/**
 * formatKubeconfig prints a kubeconfig as `kubectl config view -o json|yaml` does: JSON in
 * client-go's field order, indented 4 spaces, with Go's HTML-safe escapes; YAML with every
 * mapping's keys sorted and list items not indented. The text ends with a newline. Nothing is
 * redacted here: apply `redactKubeconfig` first for kubectl's default view.
 */
export function formatKubeconfig(config: Kubeconfig, format: KubeconfigOutputFormat): string {
  checkKubeconfig('formatKubeconfig', 'config', config);
  if (format !== 'json' && format !== 'yaml')
    fail('formatKubeconfig', 'format', '"json" or "yaml"', format);
  const encoded = encodeKubeconfig(config);
  if (format === 'json') return formatGoJson(encoded);
  return stringify(encoded, {
    version: '1.1',
    indentSeq: false,
    lineWidth: 0,
    sortMapEntries: (left, right) => compareBytes(String(left.key), String(right.key)),
  });
}

/** formatGoJson prints a JSON value as Go's `json.MarshalIndent(value, "", "    ")` plus a newline. */
export function formatGoJson(value: unknown): string {
  // These characters can only occur inside strings, so replacing them everywhere is safe.
  return `${JSON.stringify(value, null, 4).replace(/[<>&\u2028\u2029]/g, (character) => GO_JSON_ESCAPES[character] ?? character)}\n`;
}
