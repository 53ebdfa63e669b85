import { posix } from 'node:path';
import { emitYaml, Random, Raw, toJsonValue } from './scenario-yaml.js';

/**
 * Scenarios for the kubectl differential suite: a tree of kubeconfig files (and the
 * certificate files they point at), an environment, a working directory and a `kubectl config`
 * command line. Everything derives from one seed, so a failing seed reproduces exactly.
 * Paths are relative to the scenario root; `__ROOT__` in a file or argument stands for the
 * root's absolute path, which is only known when the scenario is written to disk.
 */
export interface Scenario {
  seed: number;
  command: 'view' | 'use-context' | 'set-context';
  /** args follow `kubectl config <command>` (and `k-config <command>`). */
  args: string[];
  /** kubeconfigEnv is the KUBECONFIG value, unset when undefined. */
  kubeconfigEnv: string | undefined;
  /** cwd is relative to the root. */
  cwd: string;
  files: { path: string; content: string | Uint8Array }[];
  /** features names what the scenario exercises, for the title and the coverage check. */
  features: string[];
}

/** The root placeholder in file contents, arguments and KUBECONFIG. */
export const ROOT = '__ROOT__';

const CLUSTERS = ['alpha', 'beta', 'prod', 'dev-cluster', 'kind-kind'];
const USERS = ['admin', 'dev-user', 'ci-bot', 'oidc-user'];
const CONTEXTS = ['ctx-a', 'ctx-b', 'prod', 'kind-kind', 'team:one'];
const LOCATIONS = [
  'home/.kube/config',
  'cfg/a.yaml',
  'cfg/b.json',
  'cfg/sub/c.yaml',
  'other/d',
  'e.yaml',
];
const DIRECTORIES = ['', 'cfg', 'cfg/sub', 'other', 'home'];
const REFERENCES = [
  'ca.crt',
  'certs/client.pem',
  '../shared/key.pem',
  `${ROOT}/abs/ca.pem`,
  'gone.crt',
];
/** Values a YAML writer must quote (YAML 1.1 words, numbers, indicators) or keep verbatim. */
const TRICKY_VALUES = [
  'yes',
  'on',
  'n',
  '0755',
  '1e3',
  '0x1F',
  'null',
  '~',
  '1:20',
  '#x',
  '- x',
  'a: b',
  'ünï',
  ' pad ',
];
const SERVERS = ['https://alpha.example:6443', 'https://10.0.0.1', 'http://localhost:8080', ''];

/** generateScenarios returns `count` scenarios for seeds `firstSeed`, `firstSeed + 1`, …. */
export function generateScenarios(firstSeed: number, count: number): Scenario[] {
  return Array.from({ length: count }, (_, index) => generateScenario(firstSeed + index));
}

/** generateScenario builds the scenario of one seed; about one in four is a write command. */
export function generateScenario(seed: number): Scenario {
  return new ScenarioBuilder(seed).build();
}

class ScenarioBuilder {
  private readonly random: Random;
  private readonly features = new Set<string>();
  private readonly files: Scenario['files'] = [];
  private readonly references = new Map<string, Set<string>>();
  private readonly contextsByFile = new Map<string, string[]>();
  private chain: string[] = [];

  constructor(private readonly seed: number) {
    this.random = new Random(seed);
  }

  build(): Scenario {
    const random = this.random;
    const command = random.chance(0.25)
      ? random.pick(['use-context', 'set-context'] as const)
      : 'view';
    const locations = random.shuffle(LOCATIONS).slice(0, 1 + random.int(4));
    const broken = random.chance(0.12) ? random.pick(locations) : undefined;
    for (const location of locations) this.addFile(location, location === broken);
    if (locations.length > 1) this.features.add('several-files');
    this.addReferencedFiles();
    const cwd = random.pick(DIRECTORIES);
    if (cwd) this.features.add('cwd-elsewhere');
    const { args, kubeconfigEnv } = this.selectFiles(locations, cwd, command);
    args.push(...this.commandArgs(command));
    return {
      seed: this.seed,
      command,
      args,
      kubeconfigEnv,
      cwd,
      files: this.files,
      features: [...this.features].sort(),
    };
  }

  private selectFiles(locations: string[], cwd: string, command: Scenario['command']) {
    const random = this.random;
    const args: string[] = [];
    const mode = random.pick(['explicit', 'env', 'env', 'home'] as const);
    const name = (location: string) =>
      random.chance(0.3) ? `${ROOT}/${location}` : posix.relative(cwd, location) || '.';
    let kubeconfigEnv: string | undefined;
    if (mode === 'explicit') {
      this.features.add('explicit-path');
      const target = random.chance(0.12) ? 'missing/kubeconfig' : random.pick(locations);
      if (target.startsWith('missing')) this.features.add('explicit-missing');
      this.chain = [target];
      args.push(
        ...(random.chance(0.5) ? [`--kubeconfig=${name(target)}`] : ['--kubeconfig', name(target)]),
      );
      if (random.chance(0.4)) kubeconfigEnv = locations.map(name).join(':'); // ignored by kubectl
    } else if (mode === 'env') {
      this.features.add('kubeconfig-env');
      this.chain = random.shuffle(locations);
      const entries = this.chain.map(name);
      if (random.chance(0.3)) {
        entries.splice(random.int(entries.length + 1), 0, name('nowhere/missing.yaml'));
        this.features.add('env-missing-file');
      }
      if (random.chance(0.04)) {
        entries.push(name('other'));
        this.features.add('env-directory');
      }
      if (random.chance(0.2)) {
        entries.push(entries[0] ?? '');
        this.features.add('env-duplicate');
      }
      if (random.chance(0.2)) {
        // kubectl writes to "" when a list of several ends with an empty entry and no file exists.
        entries.splice(command === 'view' ? random.int(entries.length + 1) : 0, 0, '');
        this.features.add('env-empty-entry');
      }
      kubeconfigEnv = entries.join(':');
    } else {
      this.features.add('home-config');
      this.chain = ['home/.kube/config'];
    }
    return { args, kubeconfigEnv };
  }

  private commandArgs(command: Scenario['command']): string[] {
    const random = this.random;
    const defined = this.chain.flatMap((location) => this.contextsByFile.get(location) ?? []);
    const contextName = () => {
      if (random.chance(0.06)) return 'missing-ctx';
      return defined.length > 0 && random.chance(0.9)
        ? random.pick(defined)
        : random.pick(CONTEXTS);
    };
    if (command === 'view') {
      const args: string[] = [];
      for (const flag of ['raw', 'minify', 'flatten'] as const) {
        if (random.chance(flag === 'raw' ? 0.4 : 0.3)) {
          args.push(random.chance(0.1) ? `--${flag}=true` : `--${flag}`);
          this.features.add(flag);
        }
      }
      if (random.chance(0.25)) {
        args.push(`--context=${contextName()}`);
        this.features.add('context-flag');
      }
      return random.shuffle(args);
    }
    if (command === 'use-context') {
      this.features.add('use-context');
      return [contextName()];
    }
    this.features.add('set-context');
    const args = random.chance(0.3)
      ? ['--current']
      : [random.chance(0.3) ? random.pick(['new-ctx', ...TRICKY_VALUES]) : contextName()];
    if (random.chance(0.6)) {
      args.push(`--namespace=${random.pick(['team-a', 'kube-system', '', ...TRICKY_VALUES])}`);
    }
    if (random.chance(0.4)) args.push(`--cluster=${random.pick(CLUSTERS)}`);
    if (random.chance(0.4)) args.push(`--user=${random.pick(USERS)}`);
    return args;
  }

  private addFile(location: string, broken: boolean) {
    const random = this.random;
    if (random.chance(0.04)) {
      this.files.push({ path: location, content: random.pick(['', '# only a comment\n']) });
      this.features.add('empty-file');
      return;
    }
    const tree: Record<string, unknown> = {};
    let anchor = false;
    if (random.chance(0.06)) {
      tree['x-defaults'] = new Raw(
        '&defaults {server: "https://anchored:6443", proxy-url: "http://proxy:3128"}',
        undefined,
      );
      anchor = true;
    }
    if (random.chance(0.7)) tree.apiVersion = 'v1';
    if (random.chance(0.7)) tree.kind = 'Config';
    if (random.chance(0.15)) tree.preferences = this.preferences();
    const lists = random.shuffle(['clusters', 'users', 'contexts'] as const);
    for (const list of lists) {
      if (random.chance(0.1)) {
        tree[list] = null;
        this.features.add('null-list');
        continue;
      }
      if (random.chance(0.15)) continue;
      tree[list] = this.namedList(list, location, anchor);
    }
    if (random.chance(0.75)) {
      tree['current-context'] = random.chance(0.1)
        ? new Raw('~', null)
        : random.pick([...CONTEXTS, '']);
    }
    if (random.chance(0.1)) tree.extensions = this.extensions();
    if (random.chance(0.05)) tree['unknown-top'] = { ignored: true };
    if (broken) this.breakTree(tree);
    const json = !anchor && random.chance(0.25);
    let content: string;
    if (json) {
      this.features.add('json');
      content = JSON.stringify(toJsonValue(tree), null, random.pick([0, 2, 4]));
    } else {
      this.features.add('yaml');
      content = emitYaml(tree, {
        random,
        indentSequences: random.chance(0.4),
        flowProbability: random.pick([0, 0.1, 0.3]),
        commentProbability: random.pick([0, 0.1]),
      });
      if (random.chance(0.03)) {
        content += '---\ncurrent-context: second-document\n';
        this.features.add('multi-document');
      }
      if (random.chance(0.03)) {
        content += 'current-context: repeated-key\n';
        this.features.add('duplicate-key');
      }
    }
    if (random.chance(0.04)) {
      content = content.replaceAll('\n', '\r\n');
      this.features.add('crlf');
    }
    if (random.chance(0.03)) {
      content = `\uFEFF${content}`;
      this.features.add('byte-order-mark');
    }
    if (broken && random.chance(0.25)) {
      content = random.pick([
        'clusters: [\n  - name: x\n',
        '- just\n- a list\n',
        'key: "unterminated\n',
      ]);
      this.features.add('error-syntax');
    }
    this.files.push({ path: location, content });
  }

  private breakTree(tree: Record<string, unknown>) {
    const random = this.random;
    const kind = random.pick(['duplicate', 'type', 'base64', 'version', 'kind'] as const);
    this.features.add(`error-${kind}`);
    if (kind === 'duplicate') {
      const list = random.pick(['clusters', 'users', 'contexts']);
      const name = random.pick(
        list === 'clusters' ? CLUSTERS : list === 'users' ? USERS : CONTEXTS,
      );
      const item = list.slice(0, -1);
      tree[list] = [
        { name, [item]: null },
        { name, [item]: {} },
      ];
    } else if (kind === 'type') {
      tree.clusters = [
        {
          name: 'typed',
          cluster: { server: random.pick([new Raw('123', 123), new Raw('yes', true)]) },
        },
      ];
    } else if (kind === 'base64') {
      tree.clusters = [{ name: 'b64', cluster: { 'certificate-authority-data': 'not base64!' } }];
    } else if (kind === 'version') {
      tree.apiVersion = 'v2';
    } else {
      tree.kind = 'Foo';
    }
  }

  private namedList(list: 'clusters' | 'users' | 'contexts', location: string, anchor: boolean) {
    const directory = posix.dirname(location);
    const random = this.random;
    const names = list === 'clusters' ? CLUSTERS : list === 'users' ? USERS : CONTEXTS;
    const item = list.slice(0, -1);
    const chosen = random.shuffle(names).slice(0, random.int(4));
    if (chosen.length > 0) this.features.add(`has-${list}`);
    if (list === 'contexts') this.contextsByFile.set(location, chosen);
    return chosen.map((name) => {
      if (random.chance(0.06)) {
        this.features.add('null-stanza');
        return random.chance(0.5) ? { name } : { name, [item]: null };
      }
      let stanza: unknown;
      if (list === 'clusters')
        stanza =
          anchor && random.chance(0.5)
            ? new Raw('{<<: *defaults, tls-server-name: anchored}', undefined)
            : this.cluster(directory);
      else if (list === 'users') stanza = this.user(directory);
      else stanza = this.context();
      if (stanza instanceof Raw) this.features.add('yaml-merge-key');
      return random.chance(0.5) ? { name, [item]: stanza } : { [item]: stanza, name };
    });
  }

  private cluster(directory: string) {
    const random = this.random;
    const cluster: Record<string, unknown> = {};
    if (random.chance(0.85)) cluster.server = random.pick(SERVERS);
    if (random.chance(0.15)) cluster['tls-server-name'] = 'api.internal';
    if (random.chance(0.2)) {
      cluster['insecure-skip-tls-verify'] = random.pick([
        true,
        false,
        new Raw('yes', true),
        new Raw('off', false),
        new Raw('True', true),
      ]);
      this.features.add('yaml11-bool');
    }
    if (random.chance(0.3)) cluster['certificate-authority'] = this.reference(directory);
    if (random.chance(cluster['certificate-authority'] ? 0.05 : 0.3))
      cluster['certificate-authority-data'] = this.base64();
    if (random.chance(0.1)) cluster['proxy-url'] = 'http://proxy.local:3128';
    if (random.chance(0.1)) cluster['disable-compression'] = random.chance(0.7);
    if (random.chance(0.1)) cluster.extensions = this.extensions();
    if (random.chance(0.05)) cluster['unknown-field'] = 'ignored';
    return cluster;
  }

  private user(directory: string) {
    const random = this.random;
    const user: Record<string, unknown> = {};
    if (random.chance(0.25)) user['client-certificate'] = this.reference(directory);
    if (random.chance(user['client-certificate'] ? 0.05 : 0.2))
      user['client-certificate-data'] = this.base64();
    if (random.chance(0.25)) user['client-key'] = this.reference(directory);
    if (random.chance(user['client-key'] ? 0.05 : 0.2)) user['client-key-data'] = this.base64();
    if (random.chance(0.3)) user.token = `tok-${random.int(1e6)}`;
    if (random.chance(0.1)) user.tokenFile = random.pick(['token.txt', `${ROOT}/abs/token`]);
    if (random.chance(0.1)) user.as = 'impersonated';
    if (random.chance(0.05)) user['as-uid'] = random.pick(['1001', new Raw('1001', undefined)]);
    if (random.chance(0.08)) user['as-groups'] = random.pick([['system:masters', 'dev'], [], null]);
    if (random.chance(0.08))
      user['as-user-extra'] = random.pick([
        { scopes: ['a', 'b'], empty: [] },
        { nulled: null },
        {},
      ]);
    if (random.chance(0.15)) user.username = 'bob';
    if (random.chance(0.15)) user.password = `pw-${random.int(1000)}`;
    if (random.chance(0.12)) {
      this.features.add('auth-provider');
      user['auth-provider'] = {
        name: 'oidc',
        ...(random.chance(0.8)
          ? {
              config: {
                'idp-issuer-url': 'https://issuer.example',
                'client-id': 'k',
                'id-token': 'eyJhbGciOi.secret',
                'refresh-token': 'refresh-secret',
              },
            }
          : {}),
      };
    }
    if (random.chance(0.15)) {
      this.features.add('exec');
      const exec: Record<string, unknown> = {
        command: random.pick(['kubelogin', './bin/credential', '/usr/bin/aws']),
      };
      if (random.chance(0.9))
        exec.apiVersion = random.pick([
          'client.authentication.k8s.io/v1beta1',
          'client.authentication.k8s.io/v1',
          'client.authentication.k8s.io/v1alpha1',
        ]);
      if (random.chance(0.5))
        exec.args = random.pick([['get-token', '--server-id', 'abc'], [], null]);
      if (random.chance(0.4))
        exec.env = random.pick([
          [{ name: 'SECRET', value: 'exec-secret' }, { name: 'EMPTY' }],
          [],
          null,
        ]);
      if (random.chance(0.3)) exec.installHint = 'install it with: brew install kubelogin';
      if (random.chance(0.3)) exec.provideClusterInfo = random.chance(0.5);
      if (random.chance(0.3))
        exec.interactiveMode = random.pick(['Never', 'IfAvailable', 'Always']);
      user.exec = exec;
    }
    if (random.chance(0.05)) user.extensions = this.extensions();
    return user;
  }

  private context() {
    const random = this.random;
    const context: Record<string, unknown> = {};
    if (random.chance(0.9))
      context.cluster = random.chance(0.1) ? 'missing-cluster' : random.pick(CLUSTERS);
    if (random.chance(0.85))
      context.user = random.chance(0.1) ? 'missing-user' : random.pick(USERS);
    if (random.chance(0.5))
      context.namespace = random.pick(['default', 'kube-system', 'team-a', '']);
    if (random.chance(0.05)) context.extensions = this.extensions();
    return context;
  }

  private preferences() {
    const preferences: Record<string, unknown> = {};
    if (this.random.chance(0.6)) preferences.colors = this.random.chance(0.5);
    if (this.random.chance(0.3)) preferences.extensions = this.extensions();
    return preferences;
  }

  private extensions() {
    const random = this.random;
    this.features.add('extensions');
    const names = random
      .shuffle(['ext-a', 'ext-b', 'client.authentication.k8s.io/exec'])
      .slice(0, 1 + random.int(2));
    return names.map((name) => ({
      name,
      extension: random.pick([
        { audience: 'foo', nested: { list: [1, 'two', true, null], number: 1.5 } },
        { y: 1, on: new Raw('0x1F', 31), octal: new Raw('017', 15), float: new Raw('1e3', 1000) },
        'a string',
        42,
        null,
        [1, 2, 3],
      ]),
    }));
  }

  private reference(directory: string): string {
    const reference = this.random.pick(REFERENCES);
    const references = this.references.get(directory) ?? new Set<string>();
    references.add(reference);
    this.references.set(directory, references);
    this.features.add('file-reference');
    return reference;
  }

  private addReferencedFiles() {
    for (const [directory, references] of this.references) {
      for (const reference of references) {
        if (reference === 'gone.crt' || this.random.chance(0.1)) continue;
        const path = reference.startsWith(ROOT)
          ? reference.slice(ROOT.length + 1)
          : posix.normalize(posix.join(directory, reference));
        if (path.startsWith('..') || this.files.some((file) => file.path === path)) continue;
        const bytes = new Uint8Array(8 + this.random.int(24)).map(() => this.random.int(256));
        this.files.push({ path, content: bytes });
      }
    }
  }

  private base64(): string {
    const bytes = new Uint8Array(4 + this.random.int(20)).map(() => this.random.int(256));
    return Buffer.from(bytes).toString('base64');
  }
}
