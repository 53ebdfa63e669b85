import { KubeconfigError } from '../../errors.js';
import { setCurrentContext } from '../../write/modify-kubeconfig.js';
import type { CliCommand } from '../cli-command.js';
import { stringOption } from '../cli-command.js';
import { CliUsageError } from '../cli-io.js';
import { loadCliKubeconfig } from '../load-cli-kubeconfig.js';

/**
 * useContextCommand is `kubectl config use-context NAME`: sets `current-context` in the
 * `--kubeconfig` file, else in kubectl's default file, after checking the context exists.
 */
export const useContextCommand: CliCommand = {
  name: 'use-context',
  aliases: ['use'],
  summary: 'set the current-context in a kubeconfig file',
  usage: 'k-config use-context CONTEXT_NAME',
  options: {},
  async run(commandLine, io) {
    const [name, ...rest] = commandLine.positionals;
    if (name === undefined || rest.length > 0) {
      throw new CliUsageError(
        'use-context',
        `unexpected args: [${commandLine.positionals.join(' ')}]`,
      );
    }
    if (!name) {
      throw new KubeconfigError('ERR_CONFIG_INVALID', 'empty context names are not allowed');
    }
    const loaded = await loadCliKubeconfig(io, stringOption(commandLine, 'kubeconfig'));
    await setCurrentContext(loaded, name);
    io.stdout.write(`Switched to context "${name}".\n`);
    return 0;
  },
};
