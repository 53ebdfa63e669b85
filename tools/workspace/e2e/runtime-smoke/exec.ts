/**
 * exec: @k/clientset runs a command in a Pod over a WebSocket (the transport's own upgrade),
 * feeds it stdin and reads its stdout, stderr and exit code. Prints one JSON line.
 *
 *   exec --kubeconfig=PATH --context=NAME --namespace=NS --pod=NAME
 */
import { inferClientset } from '@k/clientset';
import type { Readable } from 'node:stream';

const option = (name: string): string =>
  process.argv.find((argument) => argument.startsWith(`--${name}=`))?.slice(name.length + 3) ?? '';

async function readAll(stream: Readable | null): Promise<string> {
  let text = '';
  if (stream) for await (const chunk of stream) text += String(chunk);
  return text;
}

async function main(): Promise<void> {
  const cs = await inferClientset({ kubeconfig: option('kubeconfig'), context: option('context') });
  try {
    const session = await cs.coreV1.pods(option('namespace')).exec(option('pod'), {
      // kwok never closes the command's stdin: read what is sent, not to its end.
      command: ['sh', '-c', 'head -c 5; echo " to stderr" >&2'],
      stdin: true,
    });
    const stdout = readAll(session.stdout);
    const stderr = readAll(session.stderr);
    session.stdin?.end('hello');
    const result = await session.result;
    console.log(
      JSON.stringify({
        protocol: session.protocol,
        stdout: await stdout,
        stderr: await stderr,
        exitCode: result.exitCode,
      }),
    );
  } finally {
    await cs.close();
  }
}

main().catch((error: unknown) => {
  console.error(`exec: ${error instanceof Error ? error.stack : String(error)}`);
  process.exitCode = 1;
});
