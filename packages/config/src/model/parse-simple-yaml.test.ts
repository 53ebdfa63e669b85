import fc from 'fast-check';
import { Document } from 'yaml';
import { describe, expect, it } from 'vitest';
import { COMPLETE_KUBECONFIG } from './__fixtures__/bad-input.js';
import { parseKubeconfig, parseKubeconfigDocument } from './parse-kubeconfig.js';
import { parseSimpleYaml } from './parse-simple-yaml.js';
import { kubectlYamlTags } from './yaml-schema.js';

// The fast path's contract: whatever it accepts, the full parser accepts too and reads as the
// same value, Map order included. Checked on kubectl-style files, on random documents printed
// by the yaml library in both sequence styles, and on random damage to both.

/** ordered turns Maps into entry lists so that comparisons see the order of keys. */
function ordered(value: unknown): unknown {
  if (value instanceof Map)
    return [...(value as Map<unknown, unknown>)].map(([key, entry]) => [key, ordered(entry)]);
  if (Array.isArray(value)) return value.map(ordered);
  return value;
}

/** plainObjects turns Maps into objects with the same own keys (`__proto__` included). */
function plainObjects(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plainObjects);
  if (!(value instanceof Map)) return value;
  const object = {};
  for (const [key, entry] of value as Map<string, unknown>) {
    Object.defineProperty(object, key, {
      value: plainObjects(entry),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return object;
}

/** expectSameAsFullParser returns whether the fast path took `text`. */
function expectSameAsFullParser(text: string): boolean {
  const fast = parseSimpleYaml(text);
  if (!fast) return false;
  let full: unknown;
  try {
    full = parseKubeconfigDocument(text, 'x').toJS({ mapAsMap: true, maxAliasCount: -1 });
  } catch (error) {
    expect.fail(`the fast path took a text the full parser rejects: ${String(error)}\n${text}`);
  }
  expect(ordered(fast.value)).toEqual(ordered(full));
  return true;
}

const KUBECTL_STYLE = `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: ${Buffer.from('-----BEGIN CERTIFICATE-----').toString('base64')}
    server: https://10.0.0.1:6443
  name: production
- cluster:
    insecure-skip-tls-verify: true
    proxy-url: socks5://localhost:1080
    server: http://127.0.0.1:8080
  name: "1234"
contexts:
- context:
    cluster: production
    namespace: kube-system
    user: admin
  name: production-admin
current-context: production-admin
kind: Config
preferences: {}
users:
- name: admin
  user:
    token: eyJhbGciOiJSUzI1NiJ9.payload.signature
- name: eks
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      args:
      - --region
      - eu-west-1
      - eks
      - get-token
      command: aws
      env:
      - name: AWS_PROFILE
        value: prod
      - name: EMPTY
        value: ""
      interactiveMode: IfAvailable
      provideClusterInfo: false
- name: oidc
  user:
    auth-provider:
      config:
        client-id: kubernetes
        id-token: 'token # not a comment'
        idp-issuer-url: https://dex.example.com
      name: oidc
`;

const HAND_EDITED = `# my clusters
apiVersion: v1
kind: Config

clusters:
  - name: dev   
    cluster:
        server: https://dev.example:6443
        insecure-skip-tls-verify: yes
  # a comment between entries
  - name: empty
    cluster:
users:
  -   name: me
      user:
        username: me
        password: 'p@ss:word'
        as-groups:
          - system:masters
          - dev
contexts:
- name: dev
  context: {}
current-context: dev
`;

describe('parseSimpleYaml', () => {
  it.each([
    ['kubectl-written', KUBECTL_STYLE],
    ['hand-edited', HAND_EDITED],
  ])('reads a %s kubeconfig exactly as the full parser does', (_, text) => {
    expect(expectSameAsFullParser(text)).toBe(true);
  });

  it('keeps the decoded kubeconfig and the document identical to the full path', () => {
    const fast = parseKubeconfig(KUBECTL_STYLE, 'x');
    const document = parseKubeconfigDocument(KUBECTL_STYLE, 'x');
    expect(fast.document.toString()).toBe(document.toString());
    expect(fast.document).toBe(fast.document);
    expect(fast.config.users.get('eks')?.exec?.args).toEqual([
      '--region',
      'eu-west-1',
      'eks',
      'get-token',
    ]);
    expect(fast.config.clusters.get('1234')?.insecureSkipTlsVerify).toBe(true);
  });

  it.each([
    ['a flow mapping', 'a: {b: 1}\n'],
    ['an anchor', 'a: &x 1\nb: *x\n'],
    ['a tag', 'a: !!str 1\n'],
    ['a block scalar', 'a: |\n  text\n'],
    ['a multi-line plain scalar', 'a: one\n  two\n'],
    ['a trailing comment', 'a: b # note\n'],
    ['an escape', 'a: "\\t"\n'],
    ['a doubled single quote', "a: 'it''s'\n"],
    ['a quoted key', '"a": 1\n'],
    ['a key that is a boolean', 'yes: 1\n'],
    ['a key that is a number', '1: a\n'],
    ['a merge key', 'a: 1\n<<: {}\n'],
    ['a tab', 'a:\tb\n'],
    ['CRLF', 'a: b\r\n'],
    ['a document marker', '---\na: b\n'],
    ['a directive', '%YAML 1.1\n---\na: b\n'],
    ['a root sequence', '- a\n'],
    ['an indented root', '  a: b\n'],
    ['a nested sequence on one line', 'a:\n- - b\n'],
    ['a reserved first character', 'a: @b\n'],
    ['a mapping inside a value', 'a: b: c\n'],
  ])('leaves %s to the full parser', (_, text) => {
    expect(parseSimpleYaml(text)).toBeUndefined();
  });

  const scalar = fc.oneof(
    { arbitrary: fc.stringMatching(/^[a-z][a-z0-9.:/-]{0,20}$/), weight: 8 },
    fc.string({ maxLength: 12 }),
    fc.constantFrom(...['yes', 'No', 'on', 'OFF', 'y', 'n', '~', 'null', 'Null', '', ' ', '0x1F']),
    fc.constantFrom(
      ...['0o17', '017', '0129', '1e3', '1_000', '.inf', '-.Inf', '.nan', '+1', '-0'],
    ),
    fc.constantFrom(...['2001-12-14', '12:30:45', '--region', '-', '- a', 'a: b', 'a:b', '#x']),
    fc.constantFrom(...['a #b', "it's", 'say "hi"', 'back\\slash', '@x', '`x', '%x', '!x', '*x']),
    fc.constantFrom(...['&x', '|', '>', '[a]', '{a}', 'a,b', 'é😀', 'a\nb', ' lead', 'trail ']),
    fc.integer(),
    fc.double({ noNaN: true }),
    fc.boolean(),
    fc.constant(null),
  );
  const key = fc.oneof(
    {
      arbitrary: fc.constantFrom(...['name', 'cluster', 'user', 'server', 'token', 'args']),
      weight: 6,
    },
    fc.constantFrom(...['as-user-extra', 'client.authentication.k8s.io/exec', '__proto__', 'a_b']),
    fc.constantFrom(...['yes', '1', 'null', 'a b', 'a:b', '-x', '<<', '"q"', '']),
    fc.string({ maxLength: 6 }),
  );
  const { value } = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      scalar,
      fc.array(tie('value'), { maxLength: 4 }),
      fc.array(fc.tuple(key, tie('value')), { maxLength: 5 }).map((entries) => new Map(entries)),
    ),
  }));
  const documents = fc
    .array(fc.tuple(key, value), { maxLength: 6 })
    .map((entries) => new Map(entries));
  // YAML 1.1 prints a Map as !!omap, so it gets plain objects; 1.2 quotes less (`yes` stays
  // plain and reads as a boolean here), which both parsers must agree on too.
  const print = (contents: unknown, indentSeq: boolean, version: '1.1' | '1.2') => {
    const value = version === '1.1' ? plainObjects(contents) : contents;
    const options = version === '1.1' ? { version, customTags: kubectlYamlTags } : { version };
    return new Document(value, options).toString({ indentSeq, lineWidth: 0, directives: false });
  };

  it('agrees with the full parser on random documents, printed in both styles', () => {
    let taken = 0;
    fc.assert(
      fc.property(
        documents,
        fc.boolean(),
        fc.constantFrom('1.1', '1.2'),
        (contents, indentSeq, version) => {
          if (expectSameAsFullParser(print(contents, indentSeq, version))) taken++;
        },
      ),
      { seed: 20_240_601, numRuns: 2000 },
    );
    expect(taken).toBeGreaterThan(200); // the property must exercise the fast path
  }, 60_000);

  it('agrees with the full parser on damaged kubeconfigs', () => {
    const edit = fc.record({
      at: fc.nat(),
      remove: fc.nat({ max: 6 }),
      insert: fc.constantFrom(
        ...[' ', '  ', '\n', '- ', ': ', ':', '#', ' #', '"', "'", '{}', '[]'],
      ),
    });
    const base = fc.constantFrom(KUBECTL_STYLE, HAND_EDITED, COMPLETE_KUBECONFIG);
    let taken = 0;
    fc.assert(
      fc.property(base, fc.array(edit, { minLength: 1, maxLength: 4 }), (original, edits) => {
        let text = original;
        for (const { at, remove, insert } of edits) {
          const position = at % (text.length + 1);
          text = text.slice(0, position) + insert + text.slice(position + remove);
        }
        if (expectSameAsFullParser(text)) taken++;
      }),
      { seed: 20_240_601, numRuns: 3000 },
    );
    expect(taken).toBeGreaterThan(150);
  }, 60_000);
});
