import { parseArgs } from 'node:util';
import { CliUsageError } from './cli-io.js';

/** CliOptionSpec declares one flag of a command, as `node:util` parseArgs takes it. */
export interface CliOptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  description: string;
}

/** ParsedCommandLine holds the flags that were given (absent flags are absent) and the arguments. */
export interface ParsedCommandLine {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/**
 * parseCommandLine parses a command's arguments with pflag's conventions, which kubectl users
 * type: flags anywhere between arguments, `--flag value` and `--flag=value`, a string flag
 * takes the next argument even when it starts with `-`, booleans accept `=true`/`=false`, and
 * `-o=json` means `-o json`. Throws {@link CliUsageError} for an unknown flag or a missing value.
 */
export function parseCommandLine(
  command: string,
  argv: readonly string[],
  options: Record<string, CliOptionSpec>,
): ParsedCommandLine {
  const shortNames = new Map(
    Object.entries(options).flatMap(([name, spec]) => (spec.short ? [[spec.short, name]] : [])),
  );
  const normalized: string[] = [];
  const negated = new Set<string>();
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index] ?? '';
    if (argument === '--') {
      normalized.push(...argv.slice(index));
      break;
    }
    const flag = /^(--?)([^=]+)(?:=(.*))?$/s.exec(argument);
    if (!flag || argument === '-') {
      normalized.push(argument);
      continue;
    }
    const [, dashes, rawName = '', inline] = flag;
    const name = dashes === '-' && rawName.length === 1 ? shortNames.get(rawName) : rawName;
    const spec = name === undefined ? undefined : options[name];
    if (name === undefined || !spec) {
      if (dashes === '-' && rawName.length > 1 && shortNames.has(rawName[0] ?? '')) {
        normalized.push(argument); // -ojson
        continue;
      }
      throw new CliUsageError(
        command,
        dashes === '-'
          ? `unknown shorthand flag: '${rawName[0] ?? ''}' in ${argument}`
          : `unknown flag: --${rawName}`,
      );
    }
    if (spec.type === 'boolean') {
      // The last occurrence wins, as in pflag.
      const earlier = normalized.indexOf(`--${name}`);
      if (earlier !== -1) normalized.splice(earlier, 1);
      negated.delete(name);
      if (inline === undefined || inline === 'true') normalized.push(`--${name}`);
      else if (inline === 'false') negated.add(name);
      else
        throw new CliUsageError(
          command,
          `invalid argument "${inline}" for "--${name}" flag: strconv.ParseBool: parsing "${inline}": invalid syntax`,
        );
      continue;
    }
    if (inline !== undefined) {
      normalized.push(`--${name}=${inline}`);
      continue;
    }
    const value = argv[index + 1];
    if (value === undefined) {
      throw new CliUsageError(command, `flag needs an argument: ${dashes}${rawName}`);
    }
    normalized.push(`--${name}=${value}`);
    index++;
  }
  let parsed;
  try {
    parsed = parseArgs({
      args: normalized,
      options: Object.fromEntries(
        Object.entries(options).map(([name, spec]) => [
          name,
          spec.short ? { type: spec.type, short: spec.short } : { type: spec.type },
        ]),
      ),
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new CliUsageError(command, error instanceof Error ? error.message : String(error));
  }
  const values: ParsedCommandLine['values'] = { ...parsed.values };
  for (const name of negated) values[name] = false;
  return { values, positionals: parsed.positionals };
}
