import { resolve } from 'node:path';
import { KubeconfigError } from '../../errors.js';
import { loadKubeconfig } from '../../load/load-kubeconfig.js';
import { flattenKubeconfig } from '../../view/flatten-kubeconfig.js';
import { formatKubeconfig } from '../../view/format-kubeconfig.js';
import { minifyKubeconfig } from '../../view/minify-kubeconfig.js';
import { redactKubeconfig } from '../../view/redact-kubeconfig.js';
import type { CliCommand } from '../cli-command.js';
import { booleanOption, stringOption } from '../cli-command.js';
import { CliUsageError } from '../cli-io.js';
import { loadCliKubeconfig } from '../load-cli-kubeconfig.js';

/**
 * viewCommand is `kubectl config view`: the merged configuration, redacted unless `--raw`,
 * optionally only the current (or `--context`) context with `--minify`, with files inlined by
 * `--flatten`, as YAML (default) or JSON. When no file exists it prints the empty view and
 * says on stderr which files it looked for.
 */
export const viewCommand: CliCommand = {
  name: 'view',
  summary: 'display merged kubeconfig settings or a specified kubeconfig file',
  usage: 'k-config view [--raw] [--flatten] [--minify [--context NAME]] [-o json|yaml]',
  options: {
    raw: {
      type: 'boolean',
      description: 'show secrets (certificate and key data, tokens, passwords)',
    },
    flatten: { type: 'boolean', description: 'inline referenced files as *-data (implies raw)' },
    minify: { type: 'boolean', description: 'keep only the current context, its cluster and user' },
    context: { type: 'string', description: 'with --minify: the context to keep' },
    output: { type: 'string', short: 'o', description: 'output format: yaml (default) or json' },
    merge: { type: 'boolean', description: 'merge the kubeconfig files (default true)' },
  },
  async run(commandLine, io) {
    if (commandLine.positionals.length > 0) {
      throw new CliUsageError('view', `unexpected args: [${commandLine.positionals.join(' ')}]`);
    }
    const format = stringOption(commandLine, 'output') ?? 'yaml';
    if (format !== 'json' && format !== 'yaml') {
      throw new KubeconfigError(
        'ERR_CONFIG_INVALID',
        `unable to match a printer suitable for the output format "${format}", allowed formats are: json,yaml`,
      );
    }
    const explicitPath = stringOption(commandLine, 'kubeconfig');
    let loaded;
    if (commandLine.values.merge === false) {
      // kubectl reads the one file directly: missing is an error here.
      if (!explicitPath) {
        throw new KubeconfigError(
          'ERR_CONFIG_INVALID',
          'if merge==false a precise file must be specified',
        );
      }
      loaded = await loadKubeconfig({
        explicitPath: resolve(io.cwd, explicitPath),
        resolvePaths: false,
      });
    } else {
      loaded = await loadCliKubeconfig(io, explicitPath);
    }
    if (loaded.files.length === 0) {
      io.stderr.write(
        `note: no kubeconfig file found (looked for ${loaded.precedence.files.join(', ') || 'nothing: KUBECONFIG lists no file'}); showing an empty configuration\n`,
      );
    }
    let config = loaded.config;
    if (booleanOption(commandLine, 'minify')) {
      config = minifyKubeconfig(config, stringOption(commandLine, 'context'));
    }
    if (booleanOption(commandLine, 'flatten')) {
      config = await flattenKubeconfig(config, loaded.origins, { cwd: io.cwd });
    } else if (!booleanOption(commandLine, 'raw')) {
      config = redactKubeconfig(config);
    }
    io.stdout.write(formatKubeconfig(config, format));
    return 0;
  },
};
