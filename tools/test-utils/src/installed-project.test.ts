import { describe, expect, it } from 'vitest';
import { startCommand } from './installed-project.js';

// A program that holds the event loop open; `ignore` makes it ignore SIGTERM, saying so on stderr.
const SERVER = `
process.on('SIGTERM', () => {
  if (process.argv[1] === 'ignore') console.error('ignoring SIGTERM');
  else process.exit(0);
});
console.log('ready');
setInterval(() => undefined, 1_000);
`;

describe('startCommand', () => {
  it('waits for output and stops the command with SIGTERM', async () => {
    const command = startCommand(process.execPath, ['-e', SERVER, 'obey'], process.cwd());
    await command.waitForStdout(/ready/);
    const exit = await command.stop();
    expect(exit).toEqual({
      status: 0,
      signal: null,
      stdout: 'ready\n',
      stderr: '',
      killed: false,
    });
  });

  it('kills a command that ignores SIGTERM and returns what it wrote to stderr', async () => {
    const command = startCommand(process.execPath, ['-e', SERVER, 'ignore'], process.cwd(), {
      killAfterMs: 500,
    });
    await command.waitForStdout(/ready/);
    const exit = await command.stop();
    expect(exit).toEqual({
      status: null,
      signal: 'SIGKILL',
      stdout: 'ready\n',
      stderr: 'ignoring SIGTERM\n',
      killed: true,
    });
  });

  it('rejects waitForStdout with stdout and stderr when the command exits first', async () => {
    const command = startCommand(
      process.execPath,
      ['-e', "console.log('partial'); console.error('failed to start'); process.exit(3);"],
      process.cwd(),
    );
    await expect(command.waitForStdout(/ready/)).rejects.toThrow(
      /exited before stdout matched \/ready\/:\npartial\n\nstderr:\nfailed to start/,
    );
    expect(await command.stop()).toMatchObject({ status: 3, killed: false });
  });
});
