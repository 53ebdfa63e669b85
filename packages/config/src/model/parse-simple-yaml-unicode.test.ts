import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KubeconfigError } from '../errors.js';
import { COMPLETE_KUBECONFIG } from './__fixtures__/bad-input.js';
import {
  parseKubeconfig,
  parseKubeconfigDocument,
  parseKubeconfigWithFullParser,
} from './parse-kubeconfig.js';
import { parseSimpleYaml } from './parse-simple-yaml.js';

// The fast reader against the full parser on texts full of characters that look like spaces or
// line breaks but are not YAML's (or are YAML 1.1's only): whatever the fast reader takes, the
// full parser must read the same way, and parseKubeconfig must give exactly what the full
// parser alone gives, the same config or the same error.

const SEED = 20_261_201;
const SLOW_TEST_TIMEOUT = 120_000;

/** Unicode spaces and other characters that YAML reads as content, as any letter. */
const CONTENT_CHARACTERS = [
  ...['\u00a0', '\u1680', '\u180e', '\u2000', '\u2001', '\u2002', '\u2003', '\u2004', '\u2005'],
  ...['\u2006', '\u2007', '\u2008', '\u2009', '\u200a', '\u200b', '\u202f', '\u205f', '\u3000'],
  ...['\u00ad', '\u2060', 'é', '😀'],
];
/** Characters YAML (or YAML 1.1 alone) treats as breaks or white space, or rejects. */
const BREAKING_CHARACTERS = [
  ...['\ufeff', '\u0085', '\u2028', '\u2029', '\t', '\r', '\r\n', '\v', '\f', '\u0000'],
  ...['\u007f', '\u0080', '\u009f', '\ud800', '\udc00', '\ufffe', '\uffff'],
];
const ODD_CHARACTERS = [...CONTENT_CHARACTERS, ...BREAKING_CHARACTERS];
/** What else may go next to an odd character: YAML's own space and syntax. */
const COMPANIONS = [' ', '  ', '#', ':', '-', "'", '"', 'x'];

const oddText = fc
  .array(
    fc.oneof(
      { arbitrary: fc.constantFrom(...CONTENT_CHARACTERS), weight: 6 },
      { arbitrary: fc.constantFrom(...BREAKING_CHARACTERS), weight: 2 },
      { arbitrary: fc.constantFrom(...COMPANIONS), weight: 1 },
    ),
    { minLength: 1, maxLength: 3 },
  )
  .map((pieces) => pieces.join(''));

/** contentText is made of characters YAML reads as content, with U+0020 and letters between. */
const contentText = fc
  .array(fc.constantFrom(...CONTENT_CHARACTERS, ' ', 'x'), { minLength: 1, maxLength: 3 })
  .map((pieces) => pieces.join(''));

/** A kubeconfig with every kind of line the fast reader takes: flags, secrets, quotes, comments. */
const TEMPLATE = `# a kubeconfig
apiVersion: v1
kind: Config
preferences:
  colors: true
clusters:
- cluster:
    insecure-skip-tls-verify: true
    disable-compression: false
    server: https://127.0.0.1:6443
    tls-server-name: "kubernetes"
  name: local
  # between fields
- name: 'remote'
  cluster:
    certificate-authority-data: ${Buffer.from('certificate').toString('base64')}
    proxy-url: http://user:secret@proxy:3128
    server: https://remote:443
users:
  - name: admin
    user:
      token: s3cr3t-token
      username: admin
      password: 'pass word'
      client-key-data: ${Buffer.from('key').toString('base64')}
  - name: plugin
    user:
      exec:
        apiVersion: client.authentication.k8s.io/v1
        command: plugin
        provideClusterInfo: true
        args:
        - --flag
        - "value"
        env:
        - name: SECRET
          value: env-secret
  - name: oidc
    user:
      auth-provider:
        name: oidc
        config:
          client-secret: oidc-secret
          id-token: ""
contexts:
- name: local
  context: {}
- name: remote
  context:
    cluster: remote
    user: admin
    namespace: default
current-context: local
`;

/** A hand-edited kubeconfig: indented sequences, YAML 1.1 booleans, blank lines, comments. */
const HAND_EDITED = `apiVersion: v1
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
        password: p@ss:word
        token: "quoted-token"
        as-groups:
          - system:masters
          - dev
contexts:
- name: dev
  context:
    cluster: dev
    user: me
current-context: dev
`;

const SLOTS = [
  'line-start',
  'after-indent',
  'replace-indent',
  'after-dash',
  'key-middle',
  'before-colon',
  'after-colon',
  'replace-colon-space',
  'value-start',
  'value-middle',
  'inside-quote-start',
  'inside-quote-end',
  'value-end',
  'after-space-at-end',
  'comment',
  'line-end',
  'replace-line-break',
  'new-line',
] as const;
type Slot = (typeof SLOTS)[number];
/** A line whose value is a plain or quoted scalar (not a flag, version or kind, which must stay valid). */
const SCALAR_VALUE_LINE = /^ *(?:- +)?(?!apiVersion|kind|insecure|colors)[\w./-]+: +[^{[ ]/;
/** The slots inside or around a value, where the fast reader still takes most texts. */
const VALUE_SLOTS: readonly Slot[] = [
  'value-start',
  'value-middle',
  'inside-quote-start',
  'inside-quote-end',
  'value-end',
  'after-space-at-end',
];

/** LineParts are the offsets of one line's parts (a rough split: odd lines are welcome). */
interface LineParts {
  indent: number;
  dashEnd: number;
  colon: number;
  valueStart: number;
  valueEnd: number;
}

function partsOf(line: string): LineParts {
  let indent = 0;
  while (line[indent] === ' ') indent++;
  let dashEnd = indent;
  if (line[indent] === '-' && line[indent + 1] === ' ') {
    dashEnd = indent + 1;
    while (line[dashEnd] === ' ') dashEnd++;
  }
  const found = /:(?: |$)/.exec(line.slice(dashEnd));
  const colon = found ? dashEnd + found.index : -1;
  let valueStart = colon === -1 ? dashEnd : colon + 1;
  while (line[valueStart] === ' ') valueStart++;
  let valueEnd = line.length;
  while (valueEnd > valueStart && line[valueEnd - 1] === ' ') valueEnd--;
  return { indent, dashEnd, colon, valueStart, valueEnd };
}

/** Decoration is one odd text put at one slot of one line. */
interface Decoration {
  line: number;
  slot: Slot;
  text: string;
}

function decorate(template: string, decorations: readonly Decoration[]): string {
  const lines = template.split('\n');
  const breaks = lines.map(() => '\n');
  for (const { line: at, slot, text } of decorations) {
    const index = at % lines.length;
    const line = lines[index] ?? '';
    const parts = partsOf(line);
    const insert = (offset: number, remove = 0) => {
      lines[index] = line.slice(0, offset) + text + line.slice(offset + remove);
    };
    const quoted = /^["']/.test(line.slice(parts.valueStart));
    const colonOr = (fallback: number) => (parts.colon === -1 ? fallback : parts.colon);
    switch (slot) {
      case 'line-start':
        insert(0);
        break;
      case 'after-indent':
        insert(parts.indent);
        break;
      case 'replace-indent':
        insert(0, parts.indent > 0 ? 1 : 0);
        break;
      case 'after-dash':
        insert(parts.dashEnd);
        break;
      case 'key-middle':
        insert(Math.floor((parts.dashEnd + colonOr(line.length)) / 2));
        break;
      case 'before-colon':
        insert(colonOr(line.length));
        break;
      case 'after-colon':
        insert(parts.colon === -1 ? line.length : parts.colon + 1);
        break;
      case 'replace-colon-space':
        if (parts.colon !== -1 && line[parts.colon + 1] === ' ') insert(parts.colon + 1, 1);
        else insert(line.length);
        break;
      case 'value-start':
        insert(parts.valueStart);
        break;
      case 'value-middle':
        insert(Math.floor((parts.valueStart + parts.valueEnd) / 2));
        break;
      case 'inside-quote-start':
        insert(quoted ? parts.valueStart + 1 : parts.valueStart);
        break;
      case 'inside-quote-end':
        insert(quoted ? parts.valueEnd - 1 : parts.valueEnd);
        break;
      case 'value-end':
        insert(parts.valueEnd);
        break;
      case 'after-space-at-end':
        lines[index] = `${line} ${text}`;
        break;
      case 'comment':
        lines[index] = `${line} #${text}note`;
        break;
      case 'line-end':
        insert(line.length);
        break;
      case 'replace-line-break':
        breaks[index] = text;
        break;
      case 'new-line':
        lines[index] = `${' '.repeat(parts.indent)}${text}\n${line}`;
        break;
    }
  }
  return lines
    .map((line, index) => line + (index < lines.length - 1 ? breaks[index] : ''))
    .join('');
}

/** canonical makes Map order, bytes and own keys visible to a deep comparison. */
function canonical(value: unknown): unknown {
  if (value instanceof Map) {
    return { map: [...(value as Map<unknown, unknown>)].map(([k, v]) => [k, canonical(v)]) };
  }
  if (value instanceof Uint8Array) return { bytes: Buffer.from(value).toString('base64') };
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, canonical(entry)]));
  }
  return value;
}

/** outcome is what one parser made of a text: the config, or the error it threw. */
function outcome(parse: () => { config: unknown }): { config?: unknown; error?: unknown } {
  try {
    return { config: canonical(parse().config) };
  } catch (error) {
    if (!(error instanceof KubeconfigError)) throw error;
    return { error: { code: error.code, message: error.message } };
  }
}

/**
 * expectSameAsFullParser checks both levels of the contract and returns whether the fast
 * reader took the text: the raw value against the yaml library's, and parseKubeconfig's config
 * (or error) against the full parser's alone.
 */
function expectSameAsFullParser(text: string): boolean {
  const fast = parseSimpleYaml(text);
  if (fast) {
    let full: unknown;
    try {
      full = parseKubeconfigDocument(text, 'x').toJS({ mapAsMap: true, maxAliasCount: -1 });
    } catch (error) {
      expect.fail(
        `the fast reader took a text the full parser rejects (${String(error)}): ${JSON.stringify(text)}`,
      );
    }
    expect(canonical(fast.value), JSON.stringify(text)).toEqual(canonical(full));
  }
  expect(
    outcome(() => parseKubeconfig(text, 'fuzz.yaml')),
    JSON.stringify(text),
  ).toEqual(outcome(() => parseKubeconfigWithFullParser(text, 'fuzz.yaml')));
  return fast !== undefined;
}

const ODD = new RegExp(
  `[${ODD_CHARACTERS.filter((c) => c.length === 1 && c <= '\uffff').join('')}]`,
  'u',
);

describe(
  'parseSimpleYaml with Unicode spaces and odd characters',
  { timeout: SLOW_TEST_TIMEOUT },
  () => {
    it.each([
      ['a flag followed by a no-break space', 'a: true\u00a0\n'],
      ['a token followed by an ideographic space', 'token: abc\u3000\n'],
      ['a value ending in a space and an en quad', 'token: abc \u2000\n'],
      ['a quoted value followed by a no-break space', "token: 'abc'\u00a0\n"],
      ['a sequence item after a no-break space', 'args:\n- \u00a0x\n'],
      ['a vertical tab at the end of a value', 'a: b\u000b\n'],
    ])('reads %s as the full parser does', (_, text) => {
      expectSameAsFullParser(text);
    });

    it('agrees with the full parser wherever odd characters go in a kubeconfig', () => {
      const decoration = fc.record({
        line: fc.nat(),
        slot: fc.constantFrom(...SLOTS),
        text: oddText,
      });
      const template = fc.constantFrom(TEMPLATE, HAND_EDITED, COMPLETE_KUBECONFIG);
      let taken = 0;
      let takenWithOdd = 0;
      fc.assert(
        fc.property(
          template,
          fc.array(decoration, { minLength: 1, maxLength: 3 }),
          (base, decorations) => {
            const text = decorate(base, decorations);
            if (expectSameAsFullParser(text)) {
              taken++;
              if (ODD.test(text)) takenWithOdd++;
            }
          },
        ),
        { seed: SEED, numRuns: 4000 },
      );
      // The property must reach the fast reader, odd characters and all (192 and 166 when
      // written: most odd characters outside values rightly send the text to the full parser).
      expect(taken).toBeGreaterThan(120);
      expect(takenWithOdd).toBeGreaterThan(100);
    });

    it('agrees with the full parser with odd characters at random offsets', () => {
      const insertion = fc.record({ at: fc.nat(), remove: fc.nat({ max: 2 }), text: oddText });
      let taken = 0;
      fc.assert(
        fc.property(fc.array(insertion, { minLength: 1, maxLength: 3 }), (insertions) => {
          let text = TEMPLATE;
          for (const { at, remove, text: inserted } of insertions) {
            const position = at % (text.length + 1);
            text = text.slice(0, position) + inserted + text.slice(position + remove);
          }
          if (expectSameAsFullParser(text)) taken++;
        }),
        { seed: SEED, numRuns: 3000 },
      );
      expect(taken).toBeGreaterThan(150); // 248 when written
    });

    it('agrees with the full parser on odd characters in many values at once', () => {
      const decorations = fc.array(
        fc.record({
          slot: fc.constantFrom(...VALUE_SLOTS),
          text: contentText,
          enabled: fc.nat({ max: 5 }).map((draw) => draw === 0),
        }),
        { minLength: 60, maxLength: 60 },
      );
      let taken = 0;
      let loaded = 0;
      fc.assert(
        fc.property(fc.constantFrom(TEMPLATE, HAND_EDITED), decorations, (base, choices) => {
          const lines = base.split('\n');
          const text = decorate(
            base,
            choices.flatMap(({ slot, text, enabled }, line) => {
              const content = lines[line] ?? '';
              // Values only (not `{}`), and no space after a closing quote, which is an error.
              if (!enabled || !SCALAR_VALUE_LINE.test(content)) return [];
              const quoted = /["']$/.test(content);
              return [
                { line, slot: quoted && slot === 'after-space-at-end' ? 'value-end' : slot, text },
              ];
            }),
          );
          if (expectSameAsFullParser(text)) taken++;
          if (outcome(() => parseKubeconfig(text, 'fuzz.yaml')).config !== undefined) loaded++;
        }),
        { seed: SEED, numRuns: 1500 },
      );
      expect(taken).toBeGreaterThan(1000);
      expect(loaded).toBeGreaterThan(500); // and most decode to a whole config (1299 and 1008 when written)
    });
  },
);
