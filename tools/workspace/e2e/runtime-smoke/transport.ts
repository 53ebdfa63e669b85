/**
 * transport: @k/transport authenticates to the API server as the kubeconfig's context says (a
 * client certificate over TLS, or an exec credential plugin) and asks who it is (a
 * SelfSubjectReview). Prints one JSON line.
 *
 *   transport --kubeconfig=PATH --context=NAME
 */
import { loadKubeconfig, resolveConfig } from '@k/config';
import { createTransport } from '@k/transport';

const option = (name: string): string =>
  process.argv.find((argument) => argument.startsWith(`--${name}=`))?.slice(name.length + 3) ?? '';

async function main(): Promise<void> {
  const loaded = await loadKubeconfig({ explicitPath: option('kubeconfig') });
  const config = resolveConfig(loaded, { context: option('context') });
  const transport = createTransport(config);
  try {
    const response = await transport.request({
      method: 'POST',
      path: `${transport.server.basePath}/apis/authentication.k8s.io/v1/selfsubjectreviews`,
      headers: { accept: 'application/json', 'content-type': 'application/json' },
      body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }),
    });
    const review = (await response.body.json()) as {
      status?: { userInfo?: { username?: string; groups?: string[] } };
    };
    console.log(
      JSON.stringify({
        auth: config.auth.kind,
        clientCertificate: config.tls.certData !== undefined,
        status: response.statusCode,
        user: review.status?.userInfo?.username,
      }),
    );
  } finally {
    await transport.close();
  }
}

main().catch((error: unknown) => {
  console.error(`transport: ${error instanceof Error ? error.stack : String(error)}`);
  process.exitCode = 1;
});
