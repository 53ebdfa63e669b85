// Writes deploy/webhooks.yaml (npm run generate); src/webhooks/webhook-manifests.test.ts fails when it is stale.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { webhookManifests } from '../src/webhooks/webhook-manifests.js';

const file = path.resolve(import.meta.dirname, '../deploy/webhooks.yaml');
writeFileSync(file, await webhookManifests());
process.stdout.write(`wrote ${path.relative(process.cwd(), file)}\n`);
