import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testResolvedConfig } from '@k/config/testing';
import { describe, expect, it } from 'vitest';
import { BasicCredentialProvider } from './basic-credential-provider.js';
import {
  TokenCredentialProvider,
  TokenCredentialProviderFactory,
} from './token-credential-provider.js';

const directory = mkdtempSync(join(tmpdir(), 'k-token-provider-'));

describe('TokenCredentialProvider', () => {
  it('sends a static token as a bearer token and never asks for a replay', async () => {
    const provider = new TokenCredentialProvider({ token: 'abc' });
    const credentials = await provider.getCredentials();
    expect(credentials).toEqual({ authorization: 'Bearer abc' });
    expect(await provider.invalidate(credentials)).toBe(false);
  });

  it('prefers the token file over the static token (client-go precedence)', async () => {
    const path = join(directory, 'prefers');
    writeFileSync(path, 'from-file\n');
    const provider = new TokenCredentialProvider({ token: 'static', tokenFile: path });
    expect(await provider.getCredentials()).toEqual({ authorization: 'Bearer from-file' });
  });

  it('falls back to the static token while the file cannot be read', async () => {
    const provider = new TokenCredentialProvider({
      token: 'static',
      tokenFile: join(directory, 'missing'),
    });
    expect(await provider.getCredentials()).toEqual({ authorization: 'Bearer static' });
  });

  it('reads the file at construction without a static token, failing early when it is missing', () => {
    expect(() => new TokenCredentialProvider({ tokenFile: join(directory, 'missing') })).toThrow(
      /^failed to read token file ".*missing": ENOENT$/,
    );
  });

  it('on a 401 re-reads the file at once and replays only for a different token', async () => {
    const path = join(directory, 'rotating');
    writeFileSync(path, 'old');
    const provider = new TokenCredentialProvider({ tokenFile: path });
    const rejected = await provider.getCredentials();
    expect(await provider.invalidate(rejected)).toBe(false);
    writeFileSync(path, 'new');
    expect(await provider.invalidate(rejected)).toBe(true);
    expect(await provider.getCredentials()).toEqual({ authorization: 'Bearer new' });
  });
});

describe('TokenCredentialProviderFactory', () => {
  it("re-reads the token file on the context's clock when the options pass now as undefined", async () => {
    const path = join(directory, 'clocked');
    writeFileSync(path, 'old');
    let now = Date.now();
    const provider = new TokenCredentialProviderFactory({ now: undefined }).create({
      config: {
        ...testResolvedConfig('https://127.0.0.1:1'),
        auth: { kind: 'token', tokenFile: path },
      },
      now: () => now,
    });
    writeFileSync(path, 'new');
    expect(await provider.getCredentials()).toEqual({ authorization: 'Bearer old' });
    now += 2 * 60 * 60_000; // past the refresh interval on the context's clock, not the wall clock
    expect(await provider.getCredentials()).toEqual({ authorization: 'Bearer new' });
  });
});

describe('BasicCredentialProvider', () => {
  it('encodes username and password, the password may be empty', async () => {
    expect(await new BasicCredentialProvider('user', 'pass').getCredentials()).toEqual({
      authorization: `Basic ${Buffer.from('user:pass').toString('base64')}`,
    });
    expect(await new BasicCredentialProvider('user', '').getCredentials()).toEqual({
      authorization: 'Basic dXNlcjo=',
    });
  });
});
