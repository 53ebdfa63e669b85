import { KubeconfigError } from '../../errors.js';
import { compareBytes } from '../../view/encode-kubeconfig.js';
import type { CliCommand } from '../cli-command.js';
import { booleanOption, stringOption } from '../cli-command.js';
import { loadCliKubeconfig } from '../load-cli-kubeconfig.js';
import { formatTable } from '../format-table.js';

/**
 * getContextsCommand is `kubectl config get-contexts [NAME...]`: kubectl's table (CURRENT NAME
 * CLUSTER AUTHINFO NAMESPACE, sorted by name) or names only with `-o name`. Requested names
 * that do not exist are reported after the table, and the exit code is then 1.
 */
export const getContextsCommand: CliCommand = {
  name: 'get-contexts',
  summary: 'describe one or many contexts',
  usage: 'k-config get-contexts [NAME...] [-o name] [--no-headers]',
  options: {
    output: { type: 'string', short: 'o', description: 'output format: name' },
    'no-headers': { type: 'boolean', description: 'leave out the header line' },
  },
  async run(commandLine, io) {
    const output = stringOption(commandLine, 'output') ?? '';
    if (output !== '' && output !== 'name') {
      throw new KubeconfigError(
        'ERR_CONFIG_INVALID',
        `--output ${output} is not available in k-config get-contexts`,
      );
    }
    const { config } = await loadCliKubeconfig(io, stringOption(commandLine, 'kubeconfig'));
    const missing: string[] = [];
    const names: string[] = [];
    if (commandLine.positionals.length === 0) names.push(...config.contexts.keys());
    for (const name of commandLine.positionals) {
      if (config.contexts.has(name)) names.push(name);
      else missing.push(`context ${name} not found`);
    }
    names.sort(compareBytes);
    if (output === 'name') {
      io.stdout.write(names.map((name) => `${name}\n`).join(''));
    } else {
      const rows = names.map((name) => {
        const context = config.contexts.get(name);
        return [
          name === config.currentContext ? '*' : ' ',
          name,
          context?.cluster ?? '',
          context?.user ?? '',
          context?.namespace ?? '',
        ];
      });
      const header = ['CURRENT', 'NAME', 'CLUSTER', 'AUTHINFO', 'NAMESPACE'];
      io.stdout.write(
        formatTable(booleanOption(commandLine, 'no-headers') ? rows : [header, ...rows]),
      );
    }
    if (missing.length > 0) {
      const message = missing.length === 1 ? (missing[0] ?? '') : `[${missing.join(', ')}]`;
      throw new KubeconfigError('ERR_CONFIG_NOT_FOUND', message);
    }
    return 0;
  },
};
