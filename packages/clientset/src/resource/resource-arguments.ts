import type { KubernetesObject, NamedPatchType } from './object-types.js';
import type { PortMapping } from '../streams/port-forward.js';
import { APPLY_OPTIONS, OPTIONS, STREAM_OPTIONS } from './option-rules.js';
import { resourceName } from './resource-descriptor.js';
import {
  isPlainObject,
  NON_EMPTY_STRING,
  oneOf,
  PLAIN_OBJECT,
  REST_CLIENT,
  STRING,
  type ArgumentRule,
} from '../validation/argument-rules.js';
import {
  checkArgument,
  checkOptions,
  type ArgumentContext,
  type OptionRules,
} from '../validation/check-arguments.js';

const PATCH_TYPE = oneOf('json', 'merge', 'strategic-merge');

const PATCH_BODY: Readonly<Record<NamedPatchType, ArgumentRule>> = {
  json: { expected: 'an array of JSON patch operations', test: Array.isArray },
  merge: { expected: 'an object (a merge patch)', test: isPlainObject },
  'strategic-merge': { expected: 'an object (a strategic merge patch)', test: isPlainObject },
};

const DESCRIPTOR: ArgumentRule = {
  expected: 'a resource descriptor ({ group, version, kind, plural, namespaced })',
  test: (value) =>
    isPlainObject(value) &&
    typeof value.group === 'string' &&
    typeof value.version === 'string' &&
    value.version !== '' &&
    typeof value.plural === 'string' &&
    value.plural !== '',
};

const COMMAND: ArgumentRule = {
  expected: 'a non-empty array of strings (the program and its arguments)',
  test: (value) =>
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((item: unknown) => typeof item === 'string') &&
    value[0] !== '',
};

const PORT: ArgumentRule = {
  expected: 'a port number (an integer from 1 to 65535)',
  test: (value) => Number.isInteger(value) && (value as number) >= 1 && (value as number) <= 65535,
};

const LOCAL_PORT: ArgumentRule = {
  expected: 'undefined or a port number (0: any free port)',
  test: (value) =>
    value === undefined ||
    (Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 65535),
};

const NON_EMPTY_ARRAY: ArgumentRule = {
  expected: 'a non-empty array',
  test: (value) => Array.isArray(value) && value.length > 0,
};

const OPTIONAL_STRING: ArgumentRule = {
  expected: 'a string',
  test: (value) => value === undefined || typeof value === 'string',
};

/**
 * ResourceArguments checks at runtime what a `ResourceClient` is given, for plain-JavaScript
 * callers (the types already forbid what it refuses). Every typed and dynamic client goes
 * through one, so the generated code stays as it is. Each check throws a `ClientsetError` —
 * `ERR_CLIENTSET_INVALID_ARGUMENT`, or `ERR_CLIENTSET_INVALID_OBJECT` for the object a call sends — whose message
 * names the resource, the call and what to pass (`configmaps apply: options.fieldManager must be
 * a non-empty string, got undefined`), before anything is sent. Stateless.
 */
export class ResourceArguments {
  readonly #name: string;

  /** The constructor checks the descriptor itself (`ResourceClient: descriptor must be …`). */
  constructor(descriptor: unknown) {
    checkArgument(descriptor, DESCRIPTOR, 'descriptor', { where: 'ResourceClient' });
    this.#name = resourceName(descriptor as { group: string; plural: string });
  }

  #context(call: string | undefined, code?: ArgumentContext['code']): ArgumentContext {
    return {
      where: call === undefined ? this.#name : `${this.#name} ${call}`,
      resource: this.#name,
      ...(code ? { code } : {}),
    };
  }

  /** client checks what a client is made of: a RestClient and an optional namespace. */
  client(rest: unknown, namespace: unknown): void {
    checkArgument(rest, REST_CLIENT, 'rest', this.#context(undefined));
    checkArgument(namespace, OPTIONAL_STRING, 'namespace', this.#context(undefined));
  }

  /** namespace checks the namespace of `inNamespace` (a string, `''` for every namespace). */
  namespace(namespace: unknown): void {
    checkArgument(namespace, STRING, 'namespace', this.#context('inNamespace'));
  }

  /** name checks an object name: a non-empty string. */
  name(name: unknown, call: string): void {
    checkArgument(name, NON_EMPTY_STRING, 'name', this.#context(call));
  }

  /** options checks a call's options (optional ones by default). */
  options(options: unknown, call: string, rules: OptionRules = OPTIONS): void {
    checkOptions(options, rules, this.#context(call));
  }

  /**
   * streamOptions checks the options of a pod stream call: an object whose fields follow `rules`
   * (default: the request and keep-alive options of exec, attach, port-forward and copy).
   */
  streamOptions(options: unknown, call: string, rules: OptionRules = STREAM_OPTIONS): void {
    checkArgument(options, PLAIN_OBJECT, 'options', this.#context(call));
    checkOptions(options, rules, this.#context(call));
  }

  /** command checks the command of an exec. */
  command(command: unknown, call: string): void {
    checkArgument(command, COMMAND, 'options.command', this.#context(call));
  }

  /** path checks a file path of a copy: a non-empty string. */
  path(path: unknown, what: string, call: string): void {
    checkArgument(path, NON_EMPTY_STRING, what, this.#context(call));
  }

  /** port checks a pod's port number. */
  port(port: unknown, call: string): void {
    checkArgument(port, PORT, 'port', this.#context(call));
  }

  /** portMappings checks the ports of a port-forward and returns them as mappings. */
  portMappings(ports: unknown, call: string): PortMapping[] {
    const context = this.#context(call);
    checkArgument(ports, NON_EMPTY_ARRAY, 'ports', context);
    return (ports as unknown[]).map((entry, index) => {
      if (typeof entry === 'number') {
        checkArgument(entry, PORT, `ports[${index}]`, context);
        return { local: entry, remote: entry };
      }
      checkArgument(entry, PLAIN_OBJECT, `ports[${index}]`, context);
      const mapping = entry as PortMapping;
      checkArgument(mapping.remote, PORT, `ports[${index}].remote`, context);
      checkArgument(mapping.local, LOCAL_PORT, `ports[${index}].local`, context);
      return { local: mapping.local ?? 0, remote: mapping.remote };
    });
  }

  /** applyOptions checks the options of a server-side apply, which needs `fieldManager`. */
  applyOptions(options: unknown, call: string): void {
    checkOptions(options, APPLY_OPTIONS, this.#context(call));
  }

  /** object checks the object a call sends: a plain object. */
  object(object: unknown, call: string, what = 'the object'): void {
    checkArgument(object, PLAIN_OBJECT, what, this.#context(call, 'ERR_CLIENTSET_INVALID_OBJECT'));
  }

  /** objectName returns the `metadata.name` of an object to send, which must be set. */
  objectName(object: KubernetesObject, call: string): string {
    const name = object.metadata?.name;
    checkArgument(
      name,
      NON_EMPTY_STRING,
      'metadata.name',
      this.#context(call, 'ERR_CLIENTSET_INVALID_OBJECT'),
    );
    return name as string;
  }

  /** patch checks a patch's type (`json`, `merge` or `strategic-merge`) and that its body fits it. */
  patch(type: unknown, body: unknown, call: string): void {
    checkArgument(type, PATCH_TYPE, 'type', this.#context(call));
    checkArgument(body, PATCH_BODY[type as NamedPatchType], 'body', this.#context(call));
  }
}
