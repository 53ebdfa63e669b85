import type { ScalarTag, Tags } from 'yaml';

const INT_TAG = 'tag:yaml.org,2002:int';
const FLOAT_TAG = 'tag:yaml.org,2002:float';
const TIMESTAMP_TAG = 'tag:yaml.org,2002:timestamp';

// Go's yaml.v2 (inside kubectl) resolves a plain scalar as a number only in these shapes; the
// `yaml` library's YAML 1.1 schema differs (sexagesimal `1:20`, `e1` as a float, no `0o17`).
const GO_INT = /^[-+]?(?:0b[01]+|0o[0-7]+|0x[0-9a-fA-F]+|[0-9]+)$/;

const goInteger: ScalarTag = {
  identify: (value) => typeof value === 'number' && Number.isInteger(value),
  default: true,
  tag: INT_TAG,
  test: /^[-+]?(?:0b[01_]+|0o[0-7_]+|0x[0-9a-fA-F_]+|[0-9][0-9_]*)$/,
  resolve: (source) => parseGoNumber(source.replaceAll('_', '')),
};

const goFloat: ScalarTag = {
  identify: (value) => typeof value === 'number',
  default: true,
  tag: FLOAT_TAG,
  test: /^[-+]?(?:\.[0-9_]+|[0-9][0-9_]*(?:\.[0-9_]*)?)(?:[eE][-+]?[0-9]+)?$/,
  resolve: (source) => Number(source.replaceAll('_', '')),
};

function parseGoNumber(plain: string): number {
  if (!GO_INT.test(plain)) return Number(plain);
  const negative = plain.startsWith('-');
  const digits = plain.replace(/^[-+]/, '');
  let value: number;
  if (/^0[box]/.test(digits)) value = Number(digits);
  else if (/^0[0-7]+$/.test(digits)) value = Number.parseInt(digits, 8);
  else value = Number(digits); // includes Go's fallback for "0129": a float 129
  return negative ? -value : value;
}

/**
 * kubectlYamlTags adapts the YAML 1.1 tag set to what kubectl's yaml.v2 accepts: Go's numeric
 * forms, and timestamps kept as strings (kubeconfig fields are strings).
 */
export function kubectlYamlTags(tags: Tags): Tags {
  const kept = tags.filter((tag) => {
    if (typeof tag !== 'object') return true;
    if (tag.tag === TIMESTAMP_TAG) return false;
    if (tag.tag === INT_TAG) return false;
    // Keep only .inf/.nan of the library's floats.
    if (tag.tag === FLOAT_TAG) return 'test' in tag && !!tag.test?.test('.inf');
    return true;
  });
  return [...kept, goInteger, goFloat];
}
