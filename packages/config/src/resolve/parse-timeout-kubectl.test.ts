import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parseTimeout } from './parse-timeout.js';

// kubectl is the oracle for which `--request-timeout` values are valid: it runs against a port
// nothing listens on, so a valid timeout ends in a connection error and an invalid one in
// client-go's "Invalid timeout value". parseTimeout must accept and refuse the same values,
// except where kubectl is silently wrong: a negative duration (kubectl sends no timeout) and
// more seconds than Go's int64 nanoseconds hold (kubectl's multiplication wraps around).
const run = promisify(execFile);

const AGREED = [
  ...['0', '5', '+5', '-0', '00', '1000h', '1.5s', '.5s', '1m30s', '1h1h', '+1s', '2562047h'],
  ...['2562047h47m16.854775807s', '1ns', '1us', '1µs', '1μs', '9223372036', '-0s'],
  ...['-5', '1e400h', '5.', '2562048h', '2562047h47m16.854775808s', '0x10', ' 5', '1_000'],
  ...['1s1', 'NaN', 'inf', '1e3s', '9223372036854775808', '.s', '1..5s', 'abc', '5 s'],
];
const KUBECTL_WRONG = ['-1s', '-1h30m', '9223372037', '9223372036854775807'];

async function kubectlAccepts(value: string): Promise<boolean> {
  const args = [`--request-timeout=${value}`, '--server=http://127.0.0.1:1'];
  try {
    await run('kubectl', [...args, '--kubeconfig=/dev/null', 'get', '--raw', '/version'], {
      timeout: 20_000,
    });
    return true;
  } catch (error) {
    return !String((error as { stderr?: string }).stderr).includes('Invalid timeout value');
  }
}

function accepts(value: string): boolean {
  try {
    parseTimeout(value);
    return true;
  } catch {
    return false;
  }
}

describe('parseTimeout against kubectl --request-timeout', () => {
  it.each(AGREED)('treats %j as kubectl does', async (value) => {
    expect(accepts(value)).toBe(await kubectlAccepts(value));
  });

  it.each(KUBECTL_WRONG)('refuses %j, which kubectl takes and mishandles', async (value) => {
    expect(await kubectlAccepts(value)).toBe(true);
    expect(accepts(value)).toBe(false);
  });
});
