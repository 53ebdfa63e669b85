import { describe, expect, it } from 'vitest';
import { CliUsageError } from './cli-io.js';
import type { CliOptionSpec } from './parse-command-line.js';
import { parseCommandLine } from './parse-command-line.js';

const options: Record<string, CliOptionSpec> = {
  output: { type: 'string', short: 'o', description: '' },
  namespace: { type: 'string', description: '' },
  raw: { type: 'boolean', description: '' },
};
const parse = (...argv: string[]) => parseCommandLine('test', argv, options);

describe('parseCommandLine', () => {
  it('accepts the forms pflag accepts', () => {
    for (const argv of [
      ['-o', 'json'],
      ['-ojson'],
      ['-o=json'],
      ['--output', 'json'],
      ['--output=json'],
    ]) {
      expect(parse(...argv).values.output).toBe('json');
    }
  });

  it('takes the next argument as a value even when it starts with a dash', () => {
    expect(parse('--namespace', '--raw', 'name')).toEqual({
      values: { namespace: '--raw' },
      positionals: ['name'],
    });
  });

  it('keeps an empty value as given (set-context --namespace= clears it)', () => {
    expect(parse('--namespace=').values).toEqual({ namespace: '' });
  });

  it('reads booleans as pflag does, the last occurrence winning', () => {
    expect(parse('--raw').values.raw).toBe(true);
    expect(parse('--raw=false').values.raw).toBe(false);
    expect(parse('--raw', '--raw=false').values.raw).toBe(false);
    expect(parse('--raw=false', '--raw=true').values.raw).toBe(true);
    expect(() => parse('--raw=maybe')).toThrow(CliUsageError);
  });

  it('allows flags between arguments and stops at --', () => {
    expect(parse('a', '--raw', 'b', '--', '--namespace')).toEqual({
      values: { raw: true },
      positionals: ['a', 'b', '--namespace'],
    });
  });

  it("reports unknown flags and missing values in kubectl's words", () => {
    expect(() => parse('--nope')).toThrow('unknown flag: --nope');
    expect(() => parse('-x')).toThrow("unknown shorthand flag: 'x' in -x");
    expect(() => parse('- x')).toThrow("unknown shorthand flag: ' ' in - x");
    expect(() => parse('--output')).toThrow('flag needs an argument: --output');
  });
});
