import { KubeconfigError } from '../../errors.js';
import type { ContextChanges } from '../../write/modify-kubeconfig.js';
import { setContext } from '../../write/modify-kubeconfig.js';
import type { CliCommand } from '../cli-command.js';
import { booleanOption, stringOption } from '../cli-command.js';
import { CliUsageError } from '../cli-io.js';
import { loadCliKubeconfig } from '../load-cli-kubeconfig.js';

/**
 * setContextCommand is `kubectl config set-context [NAME | --current]`: sets the given fields
 * (`--cluster`, `--user`, `--namespace`; an empty value clears one) of a context, creating it
 * when it does not exist. A changed context stays in its file; a new one goes to kubectl's
 * default file.
 */
export const setContextCommand: CliCommand = {
  name: 'set-context',
  summary: 'set a context entry in kubeconfig',
  usage:
    'k-config set-context [NAME | --current] [--cluster=NAME] [--user=NAME] [--namespace=NAME]',
  options: {
    current: { type: 'boolean', description: 'modify the current context' },
    cluster: { type: 'string', description: 'cluster for the context entry' },
    user: { type: 'string', description: 'user for the context entry' },
    namespace: { type: 'string', description: 'namespace for the context entry' },
  },
  async run(commandLine, io) {
    const { positionals } = commandLine;
    if (positionals.length > 1) {
      throw new CliUsageError('set-context', `unexpected args: [${positionals.join(' ')}]`);
    }
    const current = booleanOption(commandLine, 'current');
    const given = positionals[0] ?? '';
    if (!given && !current) {
      throw new KubeconfigError(
        'ERR_CONFIG_INVALID',
        'you must specify a non-empty context name or --current',
      );
    }
    if (given && current) {
      throw new KubeconfigError(
        'ERR_CONFIG_INVALID',
        'you cannot specify both a context name and --current',
      );
    }
    const loaded = await loadCliKubeconfig(io, stringOption(commandLine, 'kubeconfig'));
    const name = current ? loaded.config.currentContext : given;
    if (!name) throw new KubeconfigError('ERR_CONFIG_NOT_FOUND', 'no current context is set');
    const changes: ContextChanges = {};
    for (const field of ['cluster', 'user', 'namespace'] as const) {
      const value = stringOption(commandLine, field);
      if (value !== undefined) changes[field] = value;
    }
    const { created } = await setContext(loaded, name, changes);
    io.stdout.write(`Context "${name}" ${created ? 'created' : 'modified'}.\n`);
    return 0;
  },
};
