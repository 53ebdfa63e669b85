import { describe, expect, it } from 'vitest';
import type { OpenApiSchema } from './openapi-schema.js';
import { stableJson } from './stable-json.js';
import { docComment } from './doc-comment.js';
import { groupVersionProperty, resourceMethodName, tsString } from './names.js';
import {
  declaration,
  SchemaDepthError,
  typeExpression,
  type TypeReferences,
} from './type-emitter.js';

const references: TypeReferences = {
  reference: (ref) => ref.slice(ref.lastIndexOf('.') + 1),
  named: (name) => name,
};
const context = { references, path: ['T'] };

describe('typeExpression', () => {
  it.each([
    [{ type: 'string', format: 'date-time' }, 'string'],
    [{ type: 'integer', format: 'int64' }, 'number'],
    [{ type: 'boolean' }, 'boolean'],
    [{ type: 'string', enum: ['A', "it's"] }, "'A' | 'it\\'s'"],
    [{ type: 'array', items: { type: 'string' } }, 'string[]'],
    [{ type: 'array', items: { type: 'string', enum: ['a', 'b'] } }, "('a' | 'b')[]"],
    [{ type: 'object', additionalProperties: { type: 'string' } }, '{ [key: string]: string }'],
    [{ type: 'object' }, '{ [key: string]: unknown }'],
    [{}, 'unknown'],
    [{ allOf: [{ $ref: '#/components/schemas/io.k8s.api.core.v1.PodSpec' }] }, 'PodSpec'],
    [{ 'x-kubernetes-int-or-string': true }, 'IntOrString'],
    [{ type: 'string', nullable: true }, 'string | null'],
    [{ oneOf: [{ type: 'integer' }, { type: 'string' }] }, 'number | string'],
  ])('%j → %s', (schema, expected) => {
    expect(typeExpression(schema, context)).toBe(expected);
  });

  it('writes required properties without `?`, quotes odd keys, and documents each one', () => {
    const text = declaration(
      'Thing',
      {
        description: 'Thing is a thing. */ not the end',
        type: 'object',
        required: ['name'],
        properties: {
          name: { type: 'string', description: 'The name.' },
          'x-extra': { type: 'integer' },
          $ref: { type: 'string' },
        },
      },
      context,
    );
    expect(text).toBe(
      "/** Thing is a thing. *\\/ not the end */\nexport interface Thing {\n  $ref?: string | undefined;\n  /** The name. */\n  name: string;\n  'x-extra'?: number | undefined;\n}\n",
    );
  });
});

describe('names', () => {
  it.each([
    ['configmaps', 'ConfigMap', 'configMaps'],
    ['networkpolicies', 'NetworkPolicy', 'networkPolicies'],
    ['endpoints', 'Endpoints', 'endpoints'],
    ['ingresses', 'Ingress', 'ingresses'],
    ['horizontalpodautoscalers', 'HorizontalPodAutoscaler', 'horizontalPodAutoscalers'],
    ['csistoragecapacities', 'CSIStorageCapacity', 'csiStorageCapacities'],
    ['apiservices', 'APIService', 'apiServices'],
    ['ipaddresses', 'IPAddress', 'ipAddresses'],
    ['pods', 'Pod', 'pods'],
  ])('%s (%s) → %s', (plural, kind, method) => {
    expect(resourceMethodName(plural, kind)).toBe(method);
  });

  it('names group versions like client-go', () => {
    expect(groupVersionProperty('', 'v1')).toBe('coreV1');
    expect(groupVersionProperty('rbac.authorization.k8s.io', 'v1')).toBe('rbacV1');
    expect(groupVersionProperty('flowcontrol.apiserver.k8s.io', 'v1')).toBe('flowcontrolV1');
    expect(tsString('a\'b\n"c"')).toBe("'a\\'b\\n\"c\"'");
  });

  it('renders doc comments stably', () => {
    expect(docComment(undefined)).toBe('');
    expect(docComment('one line')).toBe('/** one line */\n');
    expect(docComment('a  \n\n\n\nb', '  ')).toBe('  /**\n   * a\n   *\n   * b\n   */\n');
  });
});

describe('typeExpression of a deeply nested schema', () => {
  /** nest wraps a string schema in `levels` levels of `wrap`, by a loop. */
  function nest(levels: number, wrap: (inner: OpenApiSchema) => OpenApiSchema): OpenApiSchema {
    let schema: OpenApiSchema = { type: 'string' };
    for (let level = 0; level < levels; level += 1) schema = wrap(schema);
    return schema;
  }
  const shapes: Record<string, (inner: OpenApiSchema) => OpenApiSchema> = {
    'array items': (inner) => ({ type: 'array', items: inner }),
    'map values': (inner) => ({ type: 'object', additionalProperties: inner }),
    allOf: (inner) => ({ allOf: [inner] }),
    anyOf: (inner) => ({ anyOf: [inner, { type: 'integer' }] }),
    'inline objects': (inner) => ({ type: 'object', properties: { inner } }),
  };

  // A CRD's schema is its author's: 5,000 levels of allOf overflowed the stack.
  it.each(Object.entries(shapes))(
    '10,000 levels of %s are an error naming the schema',
    (_, wrap) => {
      const schema = nest(10_000, wrap);
      expect(() => typeExpression(schema, context)).toThrow(SchemaDepthError);
      expect(() => typeExpression(schema, context)).toThrow(
        /^the schema of T(\.[a-z]+)*…? nests deeper than 1000 levels$/,
      );
      // The count of levels in progress starts again from zero after the error.
      expect(typeExpression({ type: 'array', items: { type: 'string' } }, context)).toBe(
        'string[]',
      );
    },
  );

  it.each(Object.entries(shapes))('200 levels of %s are emitted', (_, wrap) => {
    expect(typeExpression(nest(200, wrap), context)).toContain('string');
  });
});

describe('stableJson', () => {
  it('writes stable JSON: keys sorted at every depth, arrays kept', () => {
    expect(stableJson({ b: 1, a: { d: [2, 1], c: null } })).toBe(
      '{\n  "a": {\n    "c": null,\n    "d": [\n      2,\n      1\n    ]\n  },\n  "b": 1\n}\n',
    );
  });
});
