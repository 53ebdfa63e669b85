import { afterAll, describe, expect, it } from 'vitest';
import type { Side } from '../cli/__fixtures__/run-scenario.js';
import { runK, runKubectl, sameViewOutput } from '../cli/__fixtures__/run-scenario.js';
import { KubeconfigError } from '../errors.js';
import { createTempFiles } from '../testing/temp-files.js';
import { parseKubeconfig } from './parse-kubeconfig.js';

// kubectl is the oracle for what a character means in a kubeconfig: each file below is read by
// `kubectl config view --raw -o json` and by k-config's view, which must print the same or fail
// alike. Unicode spaces are content (a flag with a trailing U+00A0 is a string, not true), and
// a lone CR, NEL, LS and PS end lines as in YAML 1.1.

const kubeconfig = (cluster: string, user: string) => `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: https://a.example
${cluster}
users:
- name: u
  user:
${user}
contexts:
- name: x
  context:
    cluster: c
    user: u
current-context: x
`;

const CASES: [string, string][] = [
  ['a flag ending in U+00A0', kubeconfig('    insecure-skip-tls-verify: true\u00a0', '')],
  ['a flag ending in U+3000', kubeconfig('    disable-compression: true\u3000', '')],
  ['a token ending in U+00A0', kubeconfig('', '    token: abc\u00a0')],
  ['a token ending in U+3000', kubeconfig('', '    token: abc\u3000')],
  ['a token ending in a space and U+2000', kubeconfig('', '    token: abc \u2000')],
  ['a password ending in U+2003', kubeconfig('', '    username: u\n    password: pw\u2003')],
  ['a quoted token followed by U+00A0', kubeconfig('', '    token: "abc"\u00a0')],
  ['U+00A0 before a #', kubeconfig('', '    token: abc\u00a0#not-a-comment')],
  ['U+00A0 after a colon', kubeconfig('', '    token:\u00a0abc')],
  ['U+00A0 in the indentation', kubeconfig('', '    \u00a0token: abc')],
  ['a value ending in U+FEFF', kubeconfig('', '    token: abc\ufeff')],
  ['NEL inside a plain value', kubeconfig('', '    token: abc\u0085def')],
  ['NEL between two fields', kubeconfig('', '    token: abc\u0085    username: u')],
  ['NEL inside a block scalar', kubeconfig('', '    token: |\n      abc\u0085      def')],
  ['LS inside a plain value', kubeconfig('', '    token: abc\u2028def')],
  ['LS between two fields', kubeconfig('', '    token: abc\u2028    username: u')],
  ['PS at the end of a value', kubeconfig('', '    token: abc\u2029')],
  ['LS ending a comment', kubeconfig('', '    # note\u2028    token: abc')],
  ['PS inside a key', kubeconfig('', '    tok\u2029en: abc')],
  ['a lone CR between two fields', kubeconfig('', '    token: abc\r    username: u')],
  ['a lone CR inside a plain value', kubeconfig('', '    token: abc\r      def')],
  ['a tab at the end of a value', kubeconfig('', '    token: abc\t')],
];

/**
 * Files kubectl reads and k-config refuses: kubectl keeps an LS or PS inside a scalar as it is,
 * which the yaml library cannot reproduce, so k-config fails instead of reading another value.
 */
const REFUSED: [string, string][] = [
  ['LS inside a double-quoted token', kubeconfig('', '    token: "abc\u2028      def"')],
  ['LS inside a block scalar', kubeconfig('', '    token: |\n      abc\u2028      def')],
];

const files = createTempFiles('k-unicode-kubectl-');
afterAll(() => files.cleanup());
const side: Side = { root: files.root, env: { HOME: files.root }, cwd: files.root };

async function view(text: string, name: string) {
  const path = files.write(`${name}.yaml`, text);
  const args = ['view', '--raw', '-o', 'json', `--kubeconfig=${path}`];
  return { kubectl: await runKubectl(args, side), k: await runK(args, side) };
}

describe('Unicode spaces and YAML 1.1 line breaks, against kubectl', () => {
  it.each(CASES.map(([title, text], index) => ({ title, text, index })))(
    'reads $title as kubectl does',
    async ({ text, index }) => {
      const { kubectl, k } = await view(text, `case-${index}`);
      expect(k.code, `kubectl: ${kubectl.stderr}\nk: ${k.stderr}`).toBe(kubectl.code);
      if (kubectl.code === 0) expect(sameViewOutput(kubectl.stdout, k.stdout), k.stdout).toBe(true);
    },
    20_000,
  );

  it.each(REFUSED.map(([title, text], index) => ({ title, text, index })))(
    'refuses $title, which kubectl reads verbatim',
    async ({ text, index }) => {
      const { kubectl, k } = await view(text, `refused-${index}`);
      expect(kubectl.code).toBe(0);
      expect(k.code).not.toBe(0);
      expect(k.stderr).toContain('a line or paragraph separator (U+2028, U+2029) inside a scalar');
      expect(() => parseKubeconfig(text, 'x')).toThrow(KubeconfigError);
    },
    20_000,
  );

  it('never names the secret value in its error', () => {
    const secret = 'the-secret\u00a0';
    const text = kubeconfig(
      '    insecure-skip-tls-verify: true\u00a0',
      `    token: "${secret}"\u2028x`,
    );
    let message = '';
    try {
      parseKubeconfig(text, 'x');
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^error loading config file "x": /);
    expect(message).not.toContain('the-secret');
  });
});
