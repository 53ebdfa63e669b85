import { KubeconfigError } from '../../errors.js';
import type { CliCommand } from '../cli-command.js';
import { stringOption } from '../cli-command.js';
import { CliUsageError } from '../cli-io.js';
import { loadCliKubeconfig } from '../load-cli-kubeconfig.js';

/** currentContextCommand is `kubectl config current-context`: prints it, or fails when unset. */
export const currentContextCommand: CliCommand = {
  name: 'current-context',
  summary: 'display the current-context',
  usage: 'k-config current-context',
  options: {},
  async run(commandLine, io) {
    if (commandLine.positionals.length > 0) {
      throw new CliUsageError(
        'current-context',
        `unexpected args: [${commandLine.positionals.join(' ')}]`,
      );
    }
    const { config } = await loadCliKubeconfig(io, stringOption(commandLine, 'kubeconfig'));
    if (!config.currentContext) {
      throw new KubeconfigError('ERR_CONFIG_NOT_FOUND', 'current-context is not set');
    }
    io.stdout.write(`${config.currentContext}\n`);
    return 0;
  },
};
