import { KUBERNETES_VERSION } from '@k/testenv';
import { describe, expect, it } from 'vitest';
import {
  committedProtobufFields,
  runProtobufFieldsProgram,
} from '../src/builtin/protobuf-fields-program.js';

describe('the committed protobuf field table', () => {
  it('is what the Go program reads from the pinned release’s API types (rerunning changes nothing)', async () => {
    const fresh = await runProtobufFieldsProgram();
    expect(JSON.parse(fresh)).toHaveProperty(['kinds', 'v1 Pod'], 'k8s.io/api/core/v1.Pod');
    expect(
      fresh === (await committedProtobufFields(KUBERNETES_VERSION)),
      'refresh it with `npm run codegen -- --refresh`',
    ).toBe(true);
  }, 600_000);
});
