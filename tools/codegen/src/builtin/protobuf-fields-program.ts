import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { goBuildEnvironment, readGoEnvironment } from '@k/testenv';
import { PROTOBUF_FIELDS_DIRECTORY, protobufFieldsFile } from './protobuf-schema-file.js';

/**
 * runProtobufFieldsProgram runs `tools/codegen/protobuf-fields` (`go run`, modules from the Go
 * module proxy or cache: k8s.io/api of the pinned release) and returns the table it prints.
 * Rejects with the program's output when it fails or reports a field it cannot describe.
 */
export async function runProtobufFieldsProgram(): Promise<string> {
  const { go } = await readGoEnvironment();
  try {
    const { stdout, stderr } = await promisify(execFile)(go, ['run', '.'], {
      cwd: PROTOBUF_FIELDS_DIRECTORY,
      env: goBuildEnvironment(),
      maxBuffer: 64 * 1024 * 1024,
    });
    if (!/ 0 problems\n?$/.test(stderr)) {
      throw new Error(`protobuf-fields reported problems:\n${stderr}`);
    }
    return stdout;
  } catch (error) {
    const { stderr } = error as { stderr?: string };
    throw new Error(`go run tools/codegen/protobuf-fields failed${stderr ? `:\n${stderr}` : ''}`, {
      cause: error,
    });
  }
}

/** committedProtobufFields reads the committed field table of `version`. */
export function committedProtobufFields(version: string): Promise<string> {
  return readFile(protobufFieldsFile(version), 'utf8');
}

/** writeProtobufFields writes the Go program's table as the committed one of `version`. */
export async function writeProtobufFields(version: string): Promise<string> {
  const path = protobufFieldsFile(version);
  await writeFile(path, await runProtobufFieldsProgram());
  return path;
}
