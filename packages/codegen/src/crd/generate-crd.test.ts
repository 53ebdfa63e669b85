import { readFile } from 'node:fs/promises';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import type { OpenApiSchema } from '../emit/openapi-schema.js';
import { generateCrdClients, parseCrds, type CustomResourceDefinition } from './generate-crd.js';

function widgetCrd(
  spec: OpenApiSchema,
  rootProperties: Record<string, OpenApiSchema> = {},
): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', kind: 'Widget' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec, ...rootProperties } } },
        },
      ],
    },
  };
}

describe('generateCrdClients', () => {
  it('fails with an error naming the file, the kind and the version on a schema 10,000 levels deep', () => {
    // A CRD's schema is its author's (JSON.parse reads any depth); the emitter stops at 1,000.
    let spec: OpenApiSchema = { type: 'string' };
    for (let level = 0; level < 10_000; level += 1) spec = { allOf: [spec] };
    expect(() =>
      generateCrdClients([widgetCrd(spec)], { outDirectory: 'generated', source: 'widgets.yaml' }),
    ).toThrow('widgets.yaml: Widget v1: the schema of Widget.spec nests deeper than 1000 levels');
  });

  it('emits an array nested 200 levels deep', () => {
    let spec: OpenApiSchema = { type: 'string' };
    for (let level = 0; level < 200; level += 1) spec = { type: 'array', items: spec };
    const files = generateCrdClients([widgetCrd(spec)], {
      outDirectory: 'generated',
      source: 'widgets.yaml',
    });
    expect(files.get('generated/widget-v1.ts')).toContain(
      `spec?: string${'[]'.repeat(200)} | undefined;`,
    );
  });
});

/** exportedNames lists the names a generated module exports, in order. */
function exportedNames(text: string | undefined): string[] {
  return [...(text ?? '').matchAll(/^export (?:interface|const|function|type) (\w+)/gm)].map(
    (match) => match[1] ?? '',
  );
}

/** widgetModule generates the Widget module of a spec (and more root properties). */
function widgetModule(spec: OpenApiSchema, rootProperties?: Record<string, OpenApiSchema>): string {
  const files = generateCrdClients([widgetCrd(spec, rootProperties)], {
    outDirectory: 'generated',
    source: 'widgets.yaml',
  });
  return files.get('generated/widget-v1.ts') ?? '';
}

const objectOf = (properties: Record<string, OpenApiSchema>): OpenApiSchema => ({
  type: 'object',
  properties,
});
const arrayOf = (items: OpenApiSchema): OpenApiSchema => ({ type: 'array', items });
const named = objectOf({ name: { type: 'string' } });

describe('generateCrdClients names', () => {
  it('follow a multi-word kind: a cluster-scoped TeamNamespace with status.conditions', async () => {
    const source = new URL('./__fixtures__/team-namespace-crd.yaml', import.meta.url);
    const files = generateCrdClients(parseCrds(await readFile(source, 'utf8'), 'crd.yaml'), {
      outDirectory: 'src/generated',
      source: 'crd.yaml',
    });
    expect([...files.keys()]).toEqual(['src/generated/team-namespace-v1alpha1.ts']);
    const text = files.get('src/generated/team-namespace-v1alpha1.ts');
    expect(exportedNames(text)).toEqual([
      'TeamNamespace',
      'TeamNamespaceSpec',
      'TeamNamespaceStatus',
      'TeamNamespaceSpecEgressPolicy',
      'TeamNamespaceSpecMember',
      'TeamNamespaceSpecQuota',
      'TeamNamespaceStatusAddress',
      'TeamNamespaceStatusCondition',
      'TeamNamespaceSpecEgressPolicyPort',
      'TeamNamespaceList',
      'teamNamespacesResource',
      'TeamNamespacesClient',
      'createTeamNamespacesClient',
    ]);
    expect(text).toContain('  conditions?: TeamNamespaceStatusCondition[] | undefined;\n');
    expect(text).toContain('  ports?: TeamNamespaceSpecEgressPolicyPort[] | undefined;\n');
    // Cluster-scoped: the factory takes no namespace.
    expect(text).toContain(
      'export function createTeamNamespacesClient(rest: RestClient): TeamNamespacesClient {\n',
    );
    expect(text).toContain(
      'export type TeamNamespacesClient = ResourceClientFor<typeof teamNamespacesResource, TeamNamespace, TeamNamespaceList>;\n',
    );
  });

  it('of a namespaced multi-word kind: WebApp → createWebAppsClient(rest, namespace)', () => {
    const crd = widgetCrd(objectOf({ ports: arrayOf(named) }));
    crd.spec.names = { kind: 'WebApp', plural: 'webapps' };
    const text = generateCrdClients([crd], { outDirectory: 'g', source: 'crd.yaml' }).get(
      'g/web-app-v1.ts',
    );
    expect(exportedNames(text)).toEqual([
      'WebApp',
      'WebAppSpec',
      'WebAppSpecPort',
      'WebAppList',
      'webAppsResource',
      'WebAppsClient',
      'createWebAppsClient',
    ]);
    expect(text).toContain(
      'export function createWebAppsClient(rest: RestClient, namespace?: string): WebAppsClient {\n',
    );
  });

  it('of an acronym kind: VPC → VPCsClient and vpcsResource', () => {
    const crd = widgetCrd(objectOf({ cidr: { type: 'string' } }));
    crd.spec.names = { kind: 'VPC', plural: 'vpcs' };
    const text = generateCrdClients([crd], { outDirectory: 'g', source: 'crd.yaml' }).get(
      'g/vpc-v1.ts',
    );
    expect(exportedNames(text).slice(-3)).toEqual([
      'vpcsResource',
      'VPCsClient',
      'createVPCsClient',
    ]);
  });

  it('give an array element the singular unless an object of that name exists, whichever sorts first', () => {
    // `entries` sorts before `entry` and `port` before `ports`: the object named as its path is
    // spelled keeps the name either way, the array's element keeps its path's spelling + Item.
    const text = widgetModule(
      objectOf({ entries: arrayOf(named), entry: named, port: named, ports: arrayOf(named) }),
    );
    expect(exportedNames(text).slice(0, 6)).toEqual([
      'Widget',
      'WidgetSpec',
      'WidgetSpecEntriesItem',
      'WidgetSpecEntry',
      'WidgetSpecPort',
      'WidgetSpecPortsItem',
    ]);
    expect(text).toContain('  entries?: WidgetSpecEntriesItem[] | undefined;\n');
    expect(text).toContain('  entry?: WidgetSpecEntry | undefined;\n');
    expect(text).toContain('  ports?: WidgetSpecPortsItem[] | undefined;\n');
  });

  it('give an array element the singular beside a scalar of that name (no type is named after it)', () => {
    const text = widgetModule(
      objectOf({ condition: { type: 'string' }, conditions: arrayOf(named) }),
    );
    expect(text).toContain('  conditions?: WidgetSpecCondition[] | undefined;\n');
  });

  it('resolve a clash with the list kind, a name taken nearer the root, an imported name and a name taken twice', () => {
    const text = widgetModule(
      objectOf({
        entries: arrayOf(named),
        entry: named,
        entriesItem: named,
        ports: arrayOf(objectOf({ protocol: named })),
      }),
      // `lists` would be WidgetList, the list kind; `specPort` takes WidgetSpecPort first.
      { lists: arrayOf(named), specPort: named },
    );
    expect(exportedNames(text)).toEqual([
      'Widget',
      'WidgetListsItem',
      'WidgetSpec',
      'WidgetSpecPort',
      'WidgetSpecEntriesItem2',
      'WidgetSpecEntriesItem',
      'WidgetSpecEntry',
      'WidgetSpecPortsItem',
      // A child of a renamed element is named after its parent's name.
      'WidgetSpecPortsItemProtocol',
      'WidgetList',
      'widgetsResource',
      'WidgetsClient',
      'createWidgetsClient',
    ]);
    // The kind `Resource` with a property `client`: ResourceClient is what the module imports.
    const crd = widgetCrd(named, { client: named });
    crd.spec.names = { kind: 'Resource', plural: 'resources' };
    const resource = generateCrdClients([crd], { outDirectory: 'g', source: 'crd.yaml' }).get(
      'g/resource-v1.ts',
    );
    expect(resource).toContain('  client?: ResourceClient2 | undefined;\n');
    expect(resource).toContain('import { ResourceClient, type ListMeta');
  });

  it('are the same however the schema orders its properties', () => {
    const properties = {
      ports: arrayOf(named),
      port: named,
      entry: named,
      entries: arrayOf(named),
    };
    const reversed = Object.fromEntries(Object.entries(properties).reverse());
    expect(widgetModule(objectOf(reversed))).toBe(widgetModule(objectOf(properties)));
  });
});

describe('generateCrdClients optional properties', () => {
  // Users with exactOptionalPropertyTypes pass possibly undefined values into generated types.
  it('accept undefined, every one of them (the list type too)', async () => {
    const source = new URL('./__fixtures__/team-namespace-crd.yaml', import.meta.url);
    const files = generateCrdClients(parseCrds(await readFile(source, 'utf8'), 'crd.yaml'), {
      outDirectory: 'g',
      source: 'crd.yaml',
    });
    const text = files.get('g/team-namespace-v1alpha1.ts') ?? '';
    const module = ts.createSourceFile('module.ts', text, ts.ScriptTarget.ES2022, true);
    const optional: string[] = [];
    const refusing: string[] = [];
    const visit = (node: ts.Node): void => {
      if (ts.isPropertySignature(node) && node.questionToken && node.type) {
        optional.push(node.name.getText(module));
        const accepts =
          node.type.kind === ts.SyntaxKind.UnknownKeyword ||
          (ts.isUnionTypeNode(node.type) &&
            node.type.types.some((type) => type.kind === ts.SyntaxKind.UndefinedKeyword));
        if (!accepts) refusing.push(`${node.name.getText(module)}?: ${node.type.getText(module)}`);
      }
      ts.forEachChild(node, visit);
    };
    visit(module);
    expect(optional.length).toBeGreaterThan(20);
    expect(refusing).toEqual([]);
  });
});
