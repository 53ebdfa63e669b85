import type { Readable } from 'node:stream';
import type { ListPage, RequestBuilder, RestClient, Status, Watch } from '@k/rest';
import { ApplyConflictError, ClientsetError } from '../errors.js';
import type { Scale } from '../generated/autoscaling/v1/types.js';
import type {
  ApplyConfiguration,
  KubernetesList,
  KubernetesObject,
  NamedPatchType,
  PartialObjectMetadata,
  PartialObjectMetadataList,
  PatchBody,
} from './object-types.js';
import type {
  ApplyOptions,
  CreateOptions,
  DeleteCollectionOptions,
  DeleteOptions,
  GetOptions,
  ListAllOptions,
  ListOptions,
  LogOptions,
  PatchOptions,
  RequestOptions,
  UpdateOptions,
  WatchOptions,
} from './request-options.js';
import { deleteOptionsBody, selectionParams, writeParams } from './request-params.js';
import { deleteResultOf, type DeleteResult } from './delete-result.js';
import type {
  AttachOptions,
  ExecOptions,
  RemoteCommandSession,
} from '../streams/remote-command.js';
import type { LogLine, LogLinesOptions } from '../streams/log-lines.js';
import type { CopyFromPodResult, CopyOptions } from '../streams/copy.js';
import type {
  PortForwarder,
  PortForwardOptions,
  PortForwardStream,
  PortForwardStreamOptions,
  PortMapping,
} from '../streams/port-forward.js';
import { copyIntoPod, copyOutOfPod } from './pod-copy.js';
import { openPodLog, podLogLines } from './pod-logs.js';
import { forwardPodPorts, openPodPortForward } from './pod-port-forward.js';
import { attachToPod, execInPod } from './pod-remote-command.js';
import type { SubresourceTarget } from './subresource-target.js';
import { METADATA_ACCEPT, METADATA_LIST_ACCEPT, type MetadataClient } from './metadata-client.js';
import { ResourceArguments } from './resource-arguments.js';
import { PROTOBUF_ACCEPT, readsProtobuf } from './protobuf-reads.js';
import { apiVersionOf, resourceName, type ResourceDescriptor } from './resource-descriptor.js';

type Subresource = 'status' | 'scale';

/**
 * ResourceClient is the one client behind every typed and dynamic resource client: it sends the
 * verbs of one resource (`descriptor`) in one namespace (or cluster-wide) through a `RestClient`,
 * with client-go's HTTP mapping (create POST, update PUT, patch/apply PATCH with the patch type's
 * Content-Type, delete DELETE with `DeleteOptions` in the body, list/watch GET). Bodies are JSON
 * parsed once into plain objects typed `T` — never converted, so a timestamp is the same string
 * from a get, a list or a watch. A verb the descriptor does not list fails with
 * `ERR_CLIENTSET_VERB_NOT_SUPPORTED`, and an argument of the wrong type (plain JavaScript) with
 * `ERR_CLIENTSET_INVALID_ARGUMENT` or `ERR_CLIENTSET_INVALID_OBJECT` ({@link ResourceArguments}), before anything is
 * sent; methods that return a promise reject. Stateless and safe for concurrent use.
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
  readonly #arguments: ResourceArguments;
  #metadataOnly = false;
  #protobuf: boolean | undefined;

  constructor(rest: RestClient, descriptor: ResourceDescriptor, namespace?: string) {
    const checks = new ResourceArguments(descriptor);
    checks.client(rest, namespace);
    this.rest = rest;
    this.descriptor = descriptor;
    this.namespace = namespace;
    this.#apiVersion = apiVersionOf(descriptor);
    this.#arguments = checks;
  }

  /** inNamespace returns the same client scoped to `namespace` (`''`: every namespace). */
  inNamespace(namespace: string): ResourceClient<T, L> {
    this.#arguments.namespace(namespace);
    if (!this.descriptor.namespaced && namespace !== '') {
      // A namespaced URL for a cluster-scoped resource answers 404 to every request.
      throw new ClientsetError(
        'ERR_CLIENTSET_INVALID_ARGUMENT',
        `${resourceName(this.descriptor)} is cluster-scoped: it has no namespace ${JSON.stringify(namespace)}`,
      );
    }
    const client = new ResourceClient<T, L>(this.rest, this.descriptor, namespace);
    client.#metadataOnly = this.#metadataOnly;
    return client;
  }

  /** metadataOnly is true for a client made by {@link asMetadata}. */
  get metadataOnly(): boolean {
    return this.#metadataOnly;
  }

  /**
   * asMetadata returns a {@link MetadataClient} of the same resource and namespace: its reads
   * ask for `PartialObjectMetadata` (for lists, `PartialObjectMetadataList`), as protobuf or
   * JSON as client-go's metadata client does, so the server answers only metadata; both decode
   * to the same objects. A server that cannot (some aggregated APIs) answers 406 Not
   * Acceptable, an `ApiError`.
   */
  asMetadata(): MetadataClient {
    const client = new ResourceClient<PartialObjectMetadata, PartialObjectMetadataList>(
      this.rest,
      this.descriptor,
      this.namespace,
    );
    client.#metadataOnly = true;
    return client;
  }

  /**
   * #read sets the Accept header of a read: `PartialObjectMetadata(List)` for a metadata client,
   * protobuf first (as client-go's typed clients) for a built-in kind's object or list.
   */
  #read(builder: RequestBuilder, list: boolean, subresource?: string): RequestBuilder {
    if (this.#metadataOnly) builder.accept(list ? METADATA_LIST_ACCEPT : METADATA_ACCEPT);
    else if (
      subresource === undefined &&
      (this.#protobuf ??= this.rest.options.protobuf !== false && readsProtobuf(this.descriptor))
    ) {
      builder.accept(PROTOBUF_ACCEPT);
    }
    return builder;
  }

  #check(verb: string, subresource?: string): void {
    const verbs = subresource
      ? this.descriptor.verbs === undefined && this.descriptor.subresources === undefined
        ? undefined
        : (this.descriptor.subresources?.[subresource] ?? [])
      : this.descriptor.verbs;
    if (verbs !== undefined && !verbs.includes(verb)) {
      const target = `${resourceName(this.descriptor)}${subresource ? `/${subresource}` : ''}`;
      throw new ClientsetError(
        'ERR_CLIENTSET_VERB_NOT_SUPPORTED',
        `${target} does not support ${verb}`,
        {
          resource: resourceName(this.descriptor),
        },
      );
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

  #get<R>(name: string, options: GetOptions, subresource?: Subresource): Promise<R> {
    return this.#read(this.#target(this.rest.get(), options, name, subresource), false, subresource)
      .params({ resourceVersion: options.resourceVersion || undefined })
      .execute<R>();
  }

  #update<R>(
    object: R & KubernetesObject,
    options: UpdateOptions,
    subresource?: Subresource,
  ): Promise<R> {
    const name = this.#arguments.objectName(
      object,
      subresource ? `update ${subresource}` : 'update',
    );
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
      name ??
      this.#arguments.objectName(configuration, subresource ? `apply ${subresource}` : 'apply');
    if (configuration.metadata?.managedFields !== undefined) {
      throw new ClientsetError(
        'ERR_CLIENTSET_INVALID_OBJECT',
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
    this.#arguments.name(name, 'get');
    this.#arguments.options(options, 'get');
    return this.#get<T>(name, options);
  }

  /**
   * list reads the objects the selection matches (GET …/<plural>), one page when `limit` is set;
   * `timeoutSeconds` also bounds the call on the client, as client-go does.
   */
  async list(options: ListOptions = {}): Promise<L> {
    this.#check('list');
    this.#arguments.options(options, 'list');
    const builder = this.#read(this.#target(this.rest.get(), options), true).params(
      selectionParams(options),
    );
    if (options.timeoutSeconds !== undefined && options.timeoutMs === undefined) {
      builder.timeout(options.timeoutSeconds * 1000);
    }
    const list = await builder.execute<L>();
    // An empty PartialObjectMetadataList comes as `"items": null` in JSON (a nil Go slice); the
    // type, and the same list as protobuf, say `[]`.
    if ((list as { items?: unknown }).items === null) (list as { items: T[] }).items = [];
    return list;
  }

  #pager(options: ListAllOptions) {
    this.#check('list');
    this.#arguments.options(options, 'list');
    const { pageSize, ...selection } = options;
    return this.#read(this.#target(this.rest.get(), options), true)
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
    this.#arguments.options(options, 'watch');
    const builder = this.#read(this.#target(this.rest.get(), options), false).params({
      ...selectionParams(options),
      sendInitialEvents: options.sendInitialEvents,
    });
    if (options.timeoutSeconds !== undefined && options.timeoutMs === undefined) {
      builder.timeout(options.timeoutSeconds * 1000);
    }
    return builder.watch<T>({
      ...(options.allowWatchBookmarks ? { allowWatchBookmarks: true } : {}),
      ...(options.idleTimeoutMs !== undefined ? { idleTimeoutMs: options.idleTimeoutMs } : {}),
      ...(options.omitManagedFields ? { omitManagedFields: true } : {}),
    });
  }

  /** create creates `object` (POST …/<plural>) and returns it as stored (or as it would be, with dryRun). */
  async create(object: T, options: CreateOptions = {}): Promise<T> {
    this.#check('create');
    this.#arguments.object(object, 'create');
    this.#arguments.options(options, 'create');
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
    this.#arguments.object(object, 'update');
    this.#arguments.options(options, 'update');
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
    this.#arguments.name(name, 'patch');
    this.#arguments.patch(type, body, 'patch');
    this.#arguments.options(options, 'patch');
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
    this.#arguments.object(configuration, 'apply', 'the configuration');
    this.#arguments.applyOptions(options, 'apply');
    return this.#apply<T>(configuration as KubernetesObject, options);
  }

  /**
   * delete deletes the object `name` (DELETE, the options as a `DeleteOptions` body) and says
   * what happened: `gone`, or still there while finalizers or a grace period run (see
   * {@link DeleteResult}); the server's answer is the object or a `Status`, depending on the
   * resource, and both are read into the one result.
   */
  async delete(name: string, options: DeleteOptions = {}): Promise<DeleteResult<T>> {
    this.#check('delete');
    this.#arguments.name(name, 'delete');
    this.#arguments.options(options, 'delete');
    return deleteResultOf(
      await this.#target(this.rest.delete(), options, name)
        .body(deleteOptionsBody(options))
        .execute<T | Status>(),
    );
  }

  /** deleteCollection deletes every object the selection matches (DELETE …/<plural>). */
  async deleteCollection(options: DeleteCollectionOptions = {}): Promise<L | Status> {
    this.#check('deletecollection');
    this.#arguments.options(options, 'deletecollection');
    return this.#target(this.rest.delete(), options)
      .params(selectionParams(options))
      .body(deleteOptionsBody(options))
      .execute<L | Status>();
  }

  /** getStatus reads the `status` subresource of `name`. */
  async getStatus(name: string, options: GetOptions = {}): Promise<T> {
    this.#check('get', 'status');
    this.#arguments.name(name, 'get status');
    this.#arguments.options(options, 'get status');
    return this.#get<T>(name, options, 'status');
  }

  /** updateStatus replaces the status of `object` (PUT …/<name>/status); other changes are ignored. */
  async updateStatus(object: T, options: UpdateOptions = {}): Promise<T> {
    this.#check('update', 'status');
    this.#arguments.object(object, 'update status');
    this.#arguments.options(options, 'update status');
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
    this.#arguments.name(name, 'patch status');
    this.#arguments.patch(type, body, 'patch status');
    this.#arguments.options(options, 'patch status');
    return this.#patch<T>(name, type, body, options, 'status');
  }

  /** applyStatus server-side applies the status fields of `configuration` (see {@link apply}). */
  async applyStatus(configuration: ApplyConfiguration<T>, options: ApplyOptions): Promise<T> {
    this.#check('patch', 'status');
    this.#arguments.object(configuration, 'apply status', 'the configuration');
    this.#arguments.applyOptions(options, 'apply status');
    return this.#apply<T>(configuration as KubernetesObject, options, 'status');
  }

  /** getScale reads the `scale` subresource of `name` (an `autoscaling/v1` Scale). */
  async getScale(name: string, options: GetOptions = {}): Promise<Scale> {
    this.#check('get', 'scale');
    this.#arguments.name(name, 'get scale');
    this.#arguments.options(options, 'get scale');
    return this.#get<Scale>(name, options, 'scale');
  }

  /** updateScale replaces the scale of `name` (PUT …/<name>/scale with an `autoscaling/v1` Scale). */
  async updateScale(name: string, scale: Scale, options: UpdateOptions = {}): Promise<Scale> {
    this.#check('update', 'scale');
    this.#arguments.name(name, 'update scale');
    this.#arguments.object(scale, 'update scale', 'the scale');
    this.#arguments.options(options, 'update scale');
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
    this.#arguments.name(name, 'patch scale');
    this.#arguments.patch(type, body, 'patch scale');
    this.#arguments.options(options, 'patch scale');
    return this.#patch<Scale>(name, type, body, options, 'scale');
  }

  /** applyScale server-side applies a Scale to `name` (`{ apiVersion: 'autoscaling/v1', kind: 'Scale', … }`). */
  async applyScale(
    name: string,
    configuration: ApplyConfiguration<Scale>,
    options: ApplyOptions,
  ): Promise<Scale> {
    this.#check('patch', 'scale');
    this.#arguments.name(name, 'apply scale');
    this.#arguments.object(configuration, 'apply scale', 'the configuration');
    this.#arguments.applyOptions(options, 'apply scale');
    return this.#apply<Scale>(configuration as KubernetesObject, options, 'scale', name);
  }

  /** #subresources is what the pod stream calls need of this client (see {@link SubresourceTarget}). */
  #subresources(): SubresourceTarget {
    return {
      arguments: this.#arguments,
      check: (verb, subresource) => this.#check(verb, subresource),
      get: (name, subresource, options) =>
        this.#target(this.rest.get(), options, name, subresource),
      read: (name, options) => this.get(name, options),
    };
  }

  /**
   * exec runs `options.command` in a pod's container over a WebSocket (`pods/exec`, the
   * `v5.channel.k8s.io` protocol, else v4) and resolves once the server accepted it, with the
   * session's streams and its `result` (see {@link RemoteCommandSession}). A refusal (403, a
   * missing container) rejects with the server's `ApiError`.
   */
  async exec(name: string, options: ExecOptions): Promise<RemoteCommandSession> {
    return execInPod(this.#subresources(), name, options);
  }

  /**
   * attach connects to the streams of a pod's running container (`pods/attach`, the same
   * protocol as {@link exec}): what it writes from now on, and its stdin when opened.
   */
  async attach(name: string, options: AttachOptions = {}): Promise<RemoteCommandSession> {
    return attachToPod(this.#subresources(), name, options);
  }

  /**
   * copyToPod copies a local file or directory to `destination` in a pod's container, as
   * `kubectl cp` does (a tar archive into `tar -x` run by {@link exec}); the destination's
   * directory must exist. Fails with `ERR_CLIENTSET_COPY` when the container's tar fails.
   */
  async copyToPod(
    name: string,
    source: string,
    destination: string,
    options: CopyOptions = {},
  ): Promise<void> {
    return copyIntoPod(this.#subresources(), name, source, destination, options);
  }

  /**
   * copyFromPod copies `source` from a pod's container to a local `destination`, as
   * `kubectl cp` does (`tar c` run by {@link exec}), extracting the archive safely: only
   * directories and regular files are written; every symbolic link (as kubectl skips them),
   * hard link and special file, and every entry with an absolute path or `..`, is not written
   * but listed in `skipped`.
   */
  async copyFromPod(
    name: string,
    source: string,
    destination: string,
    options: CopyOptions = {},
  ): Promise<CopyFromPodResult> {
    return copyOutOfPod(this.#subresources(), name, source, destination, options);
  }

  /**
   * portForwardStream opens one TCP connection to `port` of a pod (`pods/portforward` over a
   * WebSocket) as a {@link PortForwardStream}; a refusal rejects with the server's `ApiError`.
   */
  async portForwardStream(
    name: string,
    port: number,
    options: PortForwardStreamOptions = {},
  ): Promise<PortForwardStream> {
    return openPodPortForward(this.#subresources(), name, port, options);
  }

  /**
   * portForward listens on local ports and forwards every connection to the pod's port, as
   * `kubectl port-forward` does: `8080` forwards local 8080, `{ local: 0, remote: 8080 }` a free
   * local port (see `ports` of the result). It resolves once every port listens and the server
   * accepted a first connection per port (a refusal rejects).
   */
  async portForward(
    name: string,
    ports: readonly (number | PortMapping)[],
    options: PortForwardOptions = {},
  ): Promise<PortForwarder> {
    return forwardPodPorts(this.#subresources(), name, ports, options);
  }

  /**
   * logLines is the log to read line by line — what `kubectl logs` shows: each {@link LogLine}
   * carries its container and timestamp. One container (`container`, or the pod's only one), or
   * `allContainers` (init, regular, ephemeral; one after the other, or interleaved when
   * following). With `follow`, a connection that breaks is reopened from the last line's
   * timestamp without repeating lines (`reconnect`); the lines end when the server ends the log
   * (the container stopped), the signal aborts, or the clientset closes. A refusal (403, the pod
   * or container is unknown) is the server's `ApiError`. It returns an iterable, not a promise:
   * a verb or argument it refuses is thrown at the call.
   */
  logLines(name: string, options: LogLinesOptions = {}): AsyncIterable<LogLine> {
    return podLogLines(this.#subresources(), name, options);
  }

  /**
   * logs streams the raw bytes of one container's log (GET …/pods/<name>/log) once the server
   * answered — for piping it somewhere as it is; to read lines, all containers, or a followed log
   * that survives a broken connection, use {@link logLines}. With `follow` the stream stays open
   * as the container writes; a broken connection ends it with a `ConnectionError` and is not
   * reopened. The caller owns the stream: read it to the end or `destroy()` it to stop early and
   * free the connection (quietly: no error event); closing the clientset destroys it too (a
   * `for await` over it then throws `ERR_STREAM_PREMATURE_CLOSE`). The request sends the Accept
   * header kubectl sends (JSON, then anything); the log itself is text.
   */
  async logs(name: string, options: LogOptions = {}): Promise<Readable> {
    return openPodLog(this.#subresources(), name, options);
  }
}
