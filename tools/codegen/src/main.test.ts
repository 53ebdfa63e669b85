import { describe, expect, it } from 'vitest';
import { parseBuiltinArguments } from './main.js';

describe('npm run codegen', () => {
  it('parses its flags, with or without =', () => {
    expect(
      parseBuiltinArguments(['--refresh', '--kubeconfig', 'k.yaml', '--context=admin']),
    ).toEqual({
      refresh: true,
      check: false,
      help: false,
      kubeconfig: 'k.yaml',
      context: 'admin',
    });
    expect(parseBuiltinArguments(['--check'])).toMatchObject({ check: true, refresh: false });
  });

  it('refuses unknown flags, positionals and a flag without its value', () => {
    expect(() => parseBuiltinArguments(['--out=x'])).toThrow(/--out/);
    expect(() => parseBuiltinArguments(['crd'])).toThrow(/crd/);
    expect(() => parseBuiltinArguments(['--kubeconfig'])).toThrow(/--kubeconfig/);
  });
});
