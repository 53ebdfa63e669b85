import {
  checkFields,
  checkFunction,
  checkKubeconfig,
  checkLoadedKubeconfig,
  checkObject,
  checkString,
  LOCK_FIELDS,
  optional,
} from '../argument-checks.js';

import { readFile } from 'node:fs/promises';
import { Document } from 'yaml';
import { KubeconfigError } from '../errors.js';
import type { LoadedKubeconfig } from '../load/load-kubeconfig.js';
import { hideKubeconfigSecrets } from '../model/hide-kubeconfig-secrets.js';
import type { AuthInfo, Context, Kubeconfig } from '../model/kubeconfig.js';
import { parseKubeconfig } from '../model/parse-kubeconfig.js';
import { kubectlYamlTags } from '../model/yaml-schema.js';
import { editKubeconfigDocument } from './edit-kubeconfig-document.js';
import type { LockOptions } from './lock-kubeconfig-files.js';
import { lockKubeconfigFiles } from './lock-kubeconfig-files.js';
import { planKubeconfigEdits } from './plan-kubeconfig-edits.js';
import { serializeKubeconfigDocument } from './serialize-kubeconfig-document.js';
import type { FileContent } from './write-files-atomically.js';
import { writeFilesAtomically } from './write-files-atomically.js';

/** ModifyKubeconfigOptions tune how files are locked while they are rewritten. */
export type ModifyKubeconfigOptions = LockOptions;

/** ModifyKubeconfigResult is the configuration as written and the files that were rewritten. */
export interface ModifyKubeconfigResult {
  config: Kubeconfig;
  writtenFiles: string[];
}

/**
 * modifyKubeconfig writes changes back to the files they came from, as client-go's
 * ModifyConfig does, but edits each file in place instead of re-serialising it: comments,
 * formatting and unrelated entries survive. `mutate` gets a copy of `loaded.config` to change
 * (or returns a replacement); what differs from `loaded.config` is written — a changed or
 * removed cluster, user or context into the file that defined it, a new one and a new
 * `current-context` into kubectl's default file (see `defaultKubeconfigFile`).
 *
 * Each file to write is locked (`<file>.lock`, as kubectl), re-read, edited, checked to parse
 * back, and all are replaced together (temporary file, fsync, rename) keeping their mode, owner
 * and group (new files 0600); a file with hard links, or whose owner this process may not give
 * a new file, is rewritten in place instead (see `writeFilesAtomically`). A symlink stays a
 * link to the rewritten target. Concurrent changes by others to other fields of the same file
 * are kept.
 * On any failure no file has changed and a `KubeconfigError` with `ERR_CONFIG_WRITE` is thrown.
 */
export async function modifyKubeconfig(
  loaded: LoadedKubeconfig,
  mutate: (config: Kubeconfig) => Kubeconfig | void | Promise<Kubeconfig | void>,
  options: ModifyKubeconfigOptions = {},
): Promise<ModifyKubeconfigResult> {
  checkLoadedKubeconfig('modifyKubeconfig', 'loaded', loaded);
  checkFunction('modifyKubeconfig', 'mutate', mutate);
  checkFields('modifyKubeconfig', 'options', options, LOCK_FIELDS);
  const copy = structuredClone(loaded.config);
  const returned = await mutate(copy);
  optional(checkKubeconfig)('modifyKubeconfig', 'the value mutate returns', returned);
  const wanted = hideKubeconfigSecrets(returned ?? copy);
  const plan = planKubeconfigEdits(loaded, wanted);
  if (plan.size === 0) return { config: wanted, writtenFiles: [] };
  const release = await lockKubeconfigFiles([...plan.keys()], options);
  try {
    const contents: FileContent[] = [];
    for (const [path, edits] of plan) {
      const { document, source } = await readForEdit(path);
      editKubeconfigDocument(document, edits, path);
      const content = serializeKubeconfigDocument(document, source);
      try {
        parseKubeconfig(content, path);
      } catch (error) {
        throw new KubeconfigError(
          'ERR_CONFIG_WRITE',
          `cannot update kubeconfig "${path}": the edited file would not load (${(error as Error).message})`,
          { path, cause: error },
        );
      }
      contents.push({ path, content });
    }
    await writeFilesAtomically(contents);
    return { config: wanted, writtenFiles: contents.map((file) => file.path) };
  } finally {
    await release();
  }
}

async function readForEdit(path: string): Promise<{ document: Document; source?: string }> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return {
        document: new Document(
          { apiVersion: 'v1', kind: 'Config' },
          {
            version: '1.1',
            customTags: kubectlYamlTags,
          },
        ),
      };
    }
    throw new KubeconfigError(
      'ERR_CONFIG_WRITE',
      `cannot update kubeconfig "${path}": ${(error as NodeJS.ErrnoException).code ?? 'read failed'}`,
      { path, cause: error },
    );
  }
  try {
    const { document } = parseKubeconfig(bytes, path);
    return { document, source: decodeSource(bytes) };
  } catch (error) {
    throw new KubeconfigError(
      'ERR_CONFIG_WRITE',
      `cannot update kubeconfig "${path}": ${(error as Error).message}`,
      { path, cause: error },
    );
  }
}

/** decodeSource decodes the file as the parser did (BOM honoured); it is written back as UTF-8. */
function decodeSource(bytes: Uint8Array): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes);
  return new TextDecoder().decode(bytes);
}

/**
 * setCurrentContext sets `current-context` (kubectl `use-context`), in the `--kubeconfig` file
 * when one was given, else in kubectl's default file; `''` clears it where it is set. Throws
 * `ERR_CONFIG_NOT_FOUND` when no context has that name.
 */
export async function setCurrentContext(
  loaded: LoadedKubeconfig,
  name: string,
  options?: ModifyKubeconfigOptions,
): Promise<ModifyKubeconfigResult> {
  checkLoadedKubeconfig('setCurrentContext', 'loaded', loaded);
  checkString('setCurrentContext', 'name', name);
  if (name && !loaded.config.contexts.has(name)) {
    throw new KubeconfigError(
      'ERR_CONFIG_NOT_FOUND',
      `no context exists with the name: "${name}"`,
      {
        entry: name,
      },
    );
  }
  return modifyKubeconfig(
    loaded,
    (config) => {
      config.currentContext = name;
    },
    options,
  );
}

/** ContextChanges are the fields `setContext` sets; absent fields are left as they are. */
export type ContextChanges = Partial<Pick<Context, 'cluster' | 'user' | 'namespace'>>;

/**
 * setContext changes fields of a context, or creates it (kubectl `set-context`). An empty
 * string clears a field. A changed context is written into the file that defines it, a new
 * one into kubectl's default file. `created` tells which happened.
 */
export async function setContext(
  loaded: LoadedKubeconfig,
  name: string,
  changes: ContextChanges,
  options?: ModifyKubeconfigOptions,
): Promise<ModifyKubeconfigResult & { created: boolean }> {
  checkLoadedKubeconfig('setContext', 'loaded', loaded);
  checkString('setContext', 'name', name);
  const optionalString = optional(checkString);
  checkFields(
    'setContext',
    'changes',
    changes,
    { cluster: optionalString, user: optionalString, namespace: optionalString },
    false,
  );
  const created = !loaded.config.contexts.has(name);
  const result = await modifyKubeconfig(
    loaded,
    (config) => {
      const context: Context = config.contexts.get(name) ?? { cluster: '', user: '' };
      if (changes.cluster !== undefined) context.cluster = changes.cluster;
      if (changes.user !== undefined) context.user = changes.user;
      if (changes.namespace !== undefined) {
        if (changes.namespace) context.namespace = changes.namespace;
        else delete context.namespace;
      }
      config.contexts.set(name, context);
    },
    options,
  );
  return { ...result, created };
}

/**
 * updateUser changes one user in place (in the file that defines it), e.g. to store a new
 * token. Throws `ERR_CONFIG_NOT_FOUND` when there is no such user.
 */
export async function updateUser(
  loaded: LoadedKubeconfig,
  userName: string,
  update: (user: AuthInfo) => void,
  options?: ModifyKubeconfigOptions,
): Promise<ModifyKubeconfigResult> {
  checkLoadedKubeconfig('updateUser', 'loaded', loaded);
  checkString('updateUser', 'userName', userName);
  checkFunction('updateUser', 'update', update);
  if (!loaded.config.users.has(userName)) {
    throw new KubeconfigError('ERR_CONFIG_NOT_FOUND', `user "${userName}" not found`, {
      entry: userName,
    });
  }
  return modifyKubeconfig(
    loaded,
    (config) => {
      const user = config.users.get(userName);
      if (user) update(user);
    },
    options,
  );
}

/**
 * updateAuthProviderConfig stores entries in `users[].user.auth-provider.config` of one user,
 * as client-go's auth-provider persister does after an OIDC refresh: each key is set, or
 * removed when its value is undefined; other keys, and the rest of the file with its comments,
 * stay. Throws `ERR_CONFIG_NOT_FOUND` when the user does not exist or has no auth-provider.
 */
export async function updateAuthProviderConfig(
  loaded: LoadedKubeconfig,
  userName: string,
  entries: Readonly<Record<string, string | undefined>>,
  options?: ModifyKubeconfigOptions,
): Promise<ModifyKubeconfigResult> {
  checkLoadedKubeconfig('updateAuthProviderConfig', 'loaded', loaded);
  checkString('updateAuthProviderConfig', 'userName', userName);
  checkObject('updateAuthProviderConfig', 'entries', entries);
  for (const [key, value] of Object.entries(entries)) {
    optional(checkString)('updateAuthProviderConfig', `entries[${JSON.stringify(key)}]`, value);
  }
  if (!loaded.config.users.get(userName)?.authProvider) {
    throw new KubeconfigError(
      'ERR_CONFIG_NOT_FOUND',
      `user "${userName}" has no auth-provider to update`,
      { entry: userName },
    );
  }
  return updateUser(
    loaded,
    userName,
    (user) => {
      const config = user.authProvider?.config;
      if (!config) return;
      for (const [key, value] of Object.entries(entries)) {
        if (value === undefined) config.delete(key);
        else config.set(key, value);
      }
    },
    options,
  );
}
