import type { Readable } from 'node:stream';
import type { ListPage, RequestBuilder, RestClient, Status, Watch } from '@k/rest';
import { ApplyConflictError, ClientsetError } from '../errors.js';
import type { Scale } from '../generated/autoscaling/v1/types.js';
import type {
  ApplyConfiguration,
  KubernetesList,
  KubernetesObject,
  NamedPatchType,
  PatchBody,
} from './object-types.js';
import {
  deleteOptionsBody,
  logParams,
  selectionParams,
  writeParams,
  type ApplyOptions,
  type CreateOptions,
  type DeleteCollectionOptions,
  type DeleteOptions,
  type GetOptions,
  type ListAllOptions,
  type ListOptions,
  type LogOptions,
  type PatchOptions,
  type RequestOptions,
  type UpdateOptions,
  type WatchOptions,
} from './request-options.js';
import {
  checkArgument,
  checkOptions,
  type ArgumentContext,
} from '../validation/check-arguments.js';
import {
  isPlainObject,
  NON_EMPTY_STRING,
  oneOf,
  PLAIN_OBJECT,
  STRING,
  REST_CLIENT,
  type ArgumentRule,
} from '../validation/argument-rules.js';
import type { OptionRules } from '../validation/check-arguments.js';
import { trackWatch } from './open-watches.js';
import { APPLY_OPTIONS, OPTIONS } from './option-rules.js';
import { apiVersionOf, resourceName, type ResourceDescriptor } from './resource-descriptor.js';

type Subresource = 'status' | 'scale';

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

const OPTIONAL_STRING: ArgumentRule = {
  expected: 'a string',
  test: (value) => value === undefined || typeof value === 'string',
};

/**
 * ResourceClient is the one client behind every typed and dynamic resource client: it sends the
 * verbs of one resource (`descriptor`) in one namespace (or cluster-wide) through a `RestClient`,
 * with client-go's HTTP mapping (create POST, update PUT, patch/apply PATCH with the patch type's
 * Content-Type, delete DELETE with `DeleteOptions` in the body, list/watch GET). Bodies are JSON
 * parsed once into plain objects typed `T` — never converted, so a timestamp is the same string
 * from a get, a list or a watch. A verb the descriptor does not list fails with
 * `ERR_VERB_NOT_SUPPORTED` before anything is sent. Stateless and safe for concurrent use.
 *
 * Generated clients expose it through {@link ResourceClientFor}, which keeps only the verbs
 * discovery lists; the dynamic client exposes all of it.
 */
export class ResourceClient<
  T extends KubernetesObject = KubernetesObject,
  L extends KubernetesList<T> = KubernetesList<T>,
> {
  readonly rest: RestClient;
  readonly descriptor: ResourceDescriptor;
  /** namespace scopes requests: a name, `''` (all namespaces) or undefined (cluster-scoped). */
  readonly namespace: string | undefined;
  readonly #apiVersion: string;

  readonly #name: string;

  constructor(rest: RestClient, descriptor: ResourceDescriptor, namespace?: string) {
    checkArgument(descriptor, DESCRIPTOR, 'descriptor', { where: 'ResourceClient' });
    const name = resourceName(descriptor);
    checkArgument(rest, REST_CLIENT, 'rest', { where: name, resource: name });
    checkArgument(namespace, OPTIONAL_STRING, 'namespace', { where: name, resource: name });
    this.rest = rest;
    this.descriptor = descriptor;
    this.namespace = namespace;
    this.#apiVersion = apiVersionOf(descriptor);
    this.#name = name;
  }

  /** inNamespace returns the same client scoped to `namespace` (`''`: every namespace). */
  inNamespace(namespace: string): ResourceClient<T, L> {
    checkArgument(namespace, STRING, 'namespace', this.#context('inNamespace'));
    return new ResourceClient<T, L>(this.rest, this.descriptor, namespace);
  }

  /**
   * The runtime checks below are for plain-JavaScript callers (the types already forbid what
   * they refuse); every typed and dynamic client goes through them, so generated code stays
   * as it is. Each fails with `ERR_INVALID_ARGUMENT` (`ERR_INVALID_OBJECT` for the object a call
   * sends), naming the call and what to pass, before anything is sent.
   */
  #context(call: string, code?: ArgumentContext['code']): ArgumentContext {
    return { where: `${this.#name} ${call}`, resource: this.#name, ...(code ? { code } : {}) };
  }

  #checkName(name: unknown, call: string): void {
    checkArgument(name, NON_EMPTY_STRING, 'name', this.#context(call));
  }

  #checkOptions(options: unknown, call: string, rules: OptionRules = OPTIONS): void {
    checkOptions(options, rules, this.#context(call));
  }

  #checkObject(object: unknown, call: string, what = 'the object'): void {
    checkArgument(object, PLAIN_OBJECT, what, this.#context(call, 'ERR_INVALID_OBJECT'));
  }

  #checkPatch(type: unknown, body: unknown, call: string): void {
    checkArgument(type, PATCH_TYPE, 'type', this.#context(call));
    checkArgument(body, PATCH_BODY[type as NamedPatchType], 'body', this.#context(call));
  }

  #check(verb: string, subresource?: string): void {
    const verbs = subresource
      ? this.descriptor.verbs === undefined && this.descriptor.subresources === undefined
        ? undefined
        : (this.descriptor.subresources?.[subresource] ?? [])
      : this.descriptor.verbs;
    if (verbs !== undefined && !verbs.includes(verb)) {
      const target = `${resourceName(this.descriptor)}${subresource ? `/${subresource}` : ''}`;
      throw new ClientsetError('ERR_VERB_NOT_SUPPORTED', `${target} does not support ${verb}`, {
        resource: resourceName(this.descriptor),
      });
    }
  }

  #target(
    builder: RequestBuilder,
    options: RequestOptions,
    name?: string,
    subresource?: string,
  ): RequestBuilder {
    builder.groupVersion(this.#apiVersion);
    if (this.namespace !== undefined) builder.namespace(this.namespace);
    builder.resource(this.descriptor.plural);
    if (name !== undefined) builder.name(name);
    if (subresource !== undefined) builder.subresource(subresource);
    if (options.signal) builder.signal(options.signal);
    if (options.timeoutMs !== undefined) builder.timeout(options.timeoutMs);
    if (options.maxRetries !== undefined) builder.maxRetries(options.maxRetries);
    return builder;
  }

  #nameOf(object: KubernetesObject, call: string): string {
    const name = object.metadata?.name;
    if (typeof name !== 'string' || name === '') {
      checkArgument(
        name,
        NON_EMPTY_STRING,
        'metadata.name',
        this.#context(call, 'ERR_INVALID_OBJECT'),
      );
    }
    return name as string;
  }

  #get<R>(name: string, options: GetOptions, subresource?: Subresource): Promise<R> {
    return this.#target(this.rest.get(), options, name, subresource)
      .params({ resourceVersion: options.resourceVersion || undefined })
      .execute<R>();
  }

  #update<R>(
    object: R & KubernetesObject,
    options: UpdateOptions,
    subresource?: Subresource,
  ): Promise<R> {
    const name = this.#nameOf(object, subresource ? `update ${subresource}` : 'update');
    return this.#target(this.rest.put(), options, name, subresource)
      .params(writeParams(options))
      .body(object)
      .execute<R>();
  }

  #patch<R>(
    name: string,
    type: NamedPatchType,
    body: unknown,
    options: PatchOptions,
    subresource?: Subresource,
  ): Promise<R> {
    return this.#target(this.rest.patch(type), options, name, subresource)
      .params(writeParams({ ...options, force: undefined }))
      .body(body)
      .execute<R>();
  }

  async #apply<R>(
    configuration: KubernetesObject,
    options: ApplyOptions,
    subresource?: Subresource,
    name?: string,
  ): Promise<R> {
    const objectName =
      name ?? this.#nameOf(configuration, subresource ? `apply ${subresource}` : 'apply');
    if (configuration.metadata?.managedFields !== undefined) {
      throw new ClientsetError(
        'ERR_INVALID_OBJECT',
        'cannot apply an object with managed fields already set. Use the client-side apply or remove the managed fields',
        { resource: resourceName(this.descriptor) },
      );
    }
    try {
      return await this.#target(
        this.rest.apply({ fieldManager: options.fieldManager, force: options.force ?? false }),
        options,
        objectName,
        subresource,
      )
        .params({
          dryRun: options.dryRun === undefined ? undefined : 'All',
          fieldValidation: options.fieldValidation,
        })
        .body(configuration)
        .execute<R>();
    } catch (error) {
      throw ApplyConflictError.from(error);
    }
  }

  /** get reads one object by name (GET …/<plural>/<name>). */
  async get(name: string, options: GetOptions = {}): Promise<T> {
    this.#check('get');
    this.#checkName(name, 'get');
    this.#checkOptions(options, 'get');
    return this.#get<T>(name, options);
  }

  /**
   * list reads the objects the selection matches (GET …/<plural>), one page when `limit` is set;
   * `timeoutSeconds` also bounds the call on the client, as client-go does.
   */
  async list(options: ListOptions = {}): Promise<L> {
    this.#check('list');
    this.#checkOptions(options, 'list');
    const builder = this.#target(this.rest.get(), options).params(selectionParams(options));
    if (options.timeoutSeconds !== undefined && options.timeoutMs === undefined) {
      builder.timeout(options.timeoutSeconds * 1000);
    }
    return builder.execute<L>();
  }

  #pager(options: ListAllOptions) {
    this.#check('list');
    this.#checkOptions(options, 'list');
    const { pageSize, ...selection } = options;
    return this.#target(this.rest.get(), options)
      .params(selectionParams(selection))
      .pager<T>(pageSize === undefined ? {} : { pageSize });
  }

  /**
   * listAll pages through every object with `limit`/`continue` (page size 500 by default) and
   * returns one list. When a continue token expires mid-way (410), @k/rest's pager falls back to
   * one full list, so the result is always complete and consistent.
   */
  async listAll(options: ListAllOptions = {}): Promise<L> {
    return (await this.#pager(options).list()) as unknown as L;
  }

  /**
   * listPages yields the pages of a paged list one at a time (see `ListPage.restarted`). It
   * returns an iterable, not a promise, so a verb or argument it refuses is thrown at once.
   */
  listPages(options: ListAllOptions = {}): AsyncIterable<ListPage<T>> {
    return this.#pager(options);
  }

  /**
   * watch opens a watch (GET …/<plural>?watch=true) and resolves once the server accepted it;
   * iterate it for typed ADDED, MODIFIED, DELETED and BOOKMARK events. An ERROR event is thrown
   * as an `ApiError` (410 Gone: list again and watch from the new resourceVersion). An open
   * watch keeps the process alive (its connection is in use) until it ends: leave the loop, call
   * `close()`, or close the clientset that owns the transport, which ends it.
   */
  async watch(options: WatchOptions = {}): Promise<Watch<T>> {
    this.#check('watch');
    this.#checkOptions(options, 'watch');
    const builder = this.#target(this.rest.get(), options).params({
      ...selectionParams(options),
      sendInitialEvents: options.sendInitialEvents,
    });
    if (options.timeoutSeconds !== undefined && options.timeoutMs === undefined) {
      builder.timeout(options.timeoutSeconds * 1000);
    }
    const watch = await builder.watch<T>({
      ...(options.allowWatchBookmarks ? { allowWatchBookmarks: true } : {}),
      ...(options.idleTimeoutMs !== undefined ? { idleTimeoutMs: options.idleTimeoutMs } : {}),
    });
    return trackWatch(this.rest, watch);
  }

  /** create creates `object` (POST …/<plural>) and returns it as stored (or as it would be, with dryRun). */
  async create(object: T, options: CreateOptions = {}): Promise<T> {
    this.#check('create');
    this.#checkObject(object, 'create');
    this.#checkOptions(options, 'create');
    return this.#target(this.rest.post(), options)
      .params(writeParams(options))
      .body(object)
      .execute<T>();
  }

  /**
   * update replaces the object named by `object.metadata.name` (PUT). Send the
   * `metadata.resourceVersion` you read to fail with a conflict instead of overwriting a change.
   */
  async update(object: T, options: UpdateOptions = {}): Promise<T> {
    this.#check('update');
    this.#checkObject(object, 'update');
    this.#checkOptions(options, 'update');
    return this.#update<T>(object, options);
  }

  /**
   * patch changes the object `name` with a patch of the named type: `'json'` (RFC 6902 operations),
   * `'merge'` (RFC 7386) or `'strategic-merge'` (built-in kinds). The Content-Type follows the type.
   */
  async patch<Type extends NamedPatchType>(
    name: string,
    type: Type,
    body: PatchBody<T, Type>,
    options: PatchOptions = {},
  ): Promise<T> {
    this.#check('patch');
    this.#checkName(name, 'patch');
    this.#checkPatch(type, body, 'patch');
    this.#checkOptions(options, 'patch');
    return this.#patch<T>(name, type, body, options);
  }

  /**
   * apply is server-side apply (PATCH `application/apply-patch+yaml`, `fieldManager` and `force`
   * always sent, `force=false` by default): the server merges the fields sent into the object
   * (creating it when missing) and records `fieldManager` (required) as their owner. Fields
   * another manager owns fail with an {@link ApplyConflictError}, unless `force` takes them over.
   */
  async apply(configuration: ApplyConfiguration<T>, options: ApplyOptions): Promise<T> {
    this.#check('patch');
    this.#checkObject(configuration, 'apply', 'the configuration');
    this.#checkOptions(options, 'apply', APPLY_OPTIONS);
    return this.#apply<T>(configuration as KubernetesObject, options);
  }

  /**
   * delete deletes the object `name` (DELETE, the options as a `DeleteOptions` body). The answer is
   * the object (still there while finalizers run, or as it was) or a `Status`, depending on the
   * resource.
   */
  async delete(name: string, options: DeleteOptions = {}): Promise<T | Status> {
    this.#check('delete');
    this.#checkName(name, 'delete');
    this.#checkOptions(options, 'delete');
    return this.#target(this.rest.delete(), options, name)
      .body(deleteOptionsBody(options))
      .execute<T | Status>();
  }

  /** deleteCollection deletes every object the selection matches (DELETE …/<plural>). */
  async deleteCollection(options: DeleteCollectionOptions = {}): Promise<L | Status> {
    this.#check('deletecollection');
    this.#checkOptions(options, 'deletecollection');
    return this.#target(this.rest.delete(), options)
      .params(selectionParams(options))
      .body(deleteOptionsBody(options))
      .execute<L | Status>();
  }

  /** getStatus reads the `status` subresource of `name`. */
  async getStatus(name: string, options: GetOptions = {}): Promise<T> {
    this.#check('get', 'status');
    this.#checkName(name, 'get status');
    this.#checkOptions(options, 'get status');
    return this.#get<T>(name, options, 'status');
  }

  /** updateStatus replaces the status of `object` (PUT …/<name>/status); other changes are ignored. */
  async updateStatus(object: T, options: UpdateOptions = {}): Promise<T> {
    this.#check('update', 'status');
    this.#checkObject(object, 'update status');
    this.#checkOptions(options, 'update status');
    return this.#update<T>(object, options, 'status');
  }

  /** patchStatus patches the `status` subresource of `name`. */
  async patchStatus<Type extends NamedPatchType>(
    name: string,
    type: Type,
    body: PatchBody<T, Type>,
    options: PatchOptions = {},
  ): Promise<T> {
    this.#check('patch', 'status');
    this.#checkName(name, 'patch status');
    this.#checkPatch(type, body, 'patch status');
    this.#checkOptions(options, 'patch status');
    return this.#patch<T>(name, type, body, options, 'status');
  }

  /** applyStatus server-side applies the status fields of `configuration` (see {@link apply}). */
  async applyStatus(configuration: ApplyConfiguration<T>, options: ApplyOptions): Promise<T> {
    this.#check('patch', 'status');
    this.#checkObject(configuration, 'apply status', 'the configuration');
    this.#checkOptions(options, 'apply status', APPLY_OPTIONS);
    return this.#apply<T>(configuration as KubernetesObject, options, 'status');
  }

  /** getScale reads the `scale` subresource of `name` (an `autoscaling/v1` Scale). */
  async getScale(name: string, options: GetOptions = {}): Promise<Scale> {
    this.#check('get', 'scale');
    this.#checkName(name, 'get scale');
    this.#checkOptions(options, 'get scale');
    return this.#get<Scale>(name, options, 'scale');
  }

  /** updateScale replaces the scale of `name` (PUT …/<name>/scale with an `autoscaling/v1` Scale). */
  async updateScale(name: string, scale: Scale, options: UpdateOptions = {}): Promise<Scale> {
    this.#check('update', 'scale');
    this.#checkName(name, 'update scale');
    this.#checkObject(scale, 'update scale', 'the scale');
    this.#checkOptions(options, 'update scale');
    const named: Scale = { ...scale, metadata: { ...scale.metadata, name } };
    return this.#update<Scale>(named, options, 'scale');
  }

  /** patchScale patches the scale of `name`, e.g. `patchScale(name, 'merge', { spec: { replicas: 3 } })`. */
  async patchScale<Type extends NamedPatchType>(
    name: string,
    type: Type,
    body: PatchBody<Scale, Type>,
    options: PatchOptions = {},
  ): Promise<Scale> {
    this.#check('patch', 'scale');
    this.#checkName(name, 'patch scale');
    this.#checkPatch(type, body, 'patch scale');
    this.#checkOptions(options, 'patch scale');
    return this.#patch<Scale>(name, type, body, options, 'scale');
  }

  /** applyScale server-side applies a Scale to `name` (`{ apiVersion: 'autoscaling/v1', kind: 'Scale', … }`). */
  async applyScale(
    name: string,
    configuration: ApplyConfiguration<Scale>,
    options: ApplyOptions,
  ): Promise<Scale> {
    this.#check('patch', 'scale');
    this.#checkName(name, 'apply scale');
    this.#checkObject(configuration, 'apply scale', 'the configuration');
    this.#checkOptions(options, 'apply scale', APPLY_OPTIONS);
    return this.#apply<Scale>(configuration as KubernetesObject, options, 'scale', name);
  }

  /**
   * logs streams the log of a pod's container (GET …/pods/<name>/log) once the server answered;
   * with `follow` it stays open as the container writes. The caller owns the stream: read it to
   * the end or `destroy()` it to stop early and free the connection (quietly: no error event). The
   * request sends the Accept header kubectl sends (JSON, then anything); the log itself is text.
   */
  logs(name: string, options: LogOptions = {}): Promise<Readable> {
    this.#check('get', 'log');
    return this.#target(this.rest.get(), options, name, 'log').params(logParams(options)).stream();
  }
}
