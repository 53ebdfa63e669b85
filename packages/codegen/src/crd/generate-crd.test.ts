import { describe, expect, it } from 'vitest';
import type { OpenApiSchema } from '../emit/openapi-schema.js';
import { generateCrdClients, type CustomResourceDefinition } from './generate-crd.js';

function widgetCrd(spec: OpenApiSchema): CustomResourceDefinition {
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
          schema: { openAPIV3Schema: { type: 'object', properties: { spec } } },
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
    expect(files.get('generated/widget-v1.ts')).toContain(`spec?: string${'[]'.repeat(200)};`);
  });
});
