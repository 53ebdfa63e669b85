// The runner-independent part of the vitest and node:test helpers, with recorded hooks and a
// stand-in environment (what the hooks do with a real plane: e2e/runners.e2e.test.ts).
import { describe, expect, it } from 'vitest';
import { EnvtestError } from '../errors.js';
import type { Environment, TestNamespace, TestNamespaceDeleteOptions } from '../types.js';
import { environmentView, RunnerFile, type RunnerHooks } from './runner.js';

type Hook = () => Promise<void>;

/** RecordedHooks keeps the registered hooks; `runFile` runs them as a runner would. */
class RecordedHooks {
  readonly beforeAll: Hook[] = [];
  readonly afterAll: Hook[] = [];
  readonly beforeEach: Hook[] = [];
  readonly afterEach: Hook[] = [];
  readonly hooks: RunnerHooks = {
    beforeAll: (hook) => this.beforeAll.push(hook),
    afterAll: (hook) => this.afterAll.push(hook),
    beforeEach: (hook) => this.beforeEach.push(hook),
    afterEach: (hook) => this.afterEach.push(hook),
  };

  /** runFile runs `tests` between the hooks; `order` is how the runner orders after hooks. */
  async runFile(
    tests: readonly (() => Promise<void> | void)[],
    order: 'last-registered-first' | 'first-registered-first',
  ): Promise<unknown[]> {
    const errors: unknown[] = [];
    const after = (hooks: Hook[]) =>
      order === 'last-registered-first' ? [...hooks].reverse() : hooks;
    for (const hook of this.beforeAll) await hook();
    for (const test of tests) {
      for (const hook of this.beforeEach) await hook();
      await test();
      for (const hook of after(this.afterEach)) await hook();
    }
    for (const hook of after(this.afterAll))
      await hook().catch((error: unknown) => errors.push(error));
    return errors;
  }
}

/** FakeNamespace records its deletes; `stuck` ones fail a waiting delete as a held namespace does. */
class FakeNamespace implements TestNamespace {
  readonly deletes: TestNamespaceDeleteOptions[] = [];
  constructor(
    readonly name: string,
    readonly log: string[],
    readonly stuck: boolean,
  ) {}
  delete(options: TestNamespaceDeleteOptions = {}): Promise<void> {
    this.deletes.push(options);
    this.log.push(`delete ${this.name} wait=${options.wait ?? true}`);
    if (options.wait !== false && this.stuck) {
      return Promise.reject(
        new EnvtestError('ERR_ENVTEST_NAMESPACE_STUCK', `namespace ${this.name} is stuck`),
      );
    }
    return Promise.resolve();
  }
  [Symbol.asyncDispose](): Promise<void> {
    return this.delete();
  }
}

function fakeEnvironment(log: string[], stuck: (index: number) => boolean = () => false) {
  const namespaces: FakeNamespace[] = [];
  const environment = {
    server: 'https://127.0.0.1:1',
    createTestNamespace: () => {
      const namespace = new FakeNamespace(`ns-${namespaces.length}`, log, stuck(namespaces.length));
      namespaces.push(namespace);
      log.push(`create ${namespace.name}`);
      return Promise.resolve(namespace);
    },
    close: () => {
      log.push('close');
      return Promise.resolve();
    },
  } as unknown as Environment;
  return { environment, namespaces };
}

describe('environmentView', () => {
  it('forwards members and binds methods to the live environment', () => {
    const holder: { live?: { server: string; name(): string } } = {};
    const view = environmentView(() => holder.live as unknown as Environment, 'useEnvironment()');
    holder.live = {
      server: 'https://127.0.0.1:6443',
      name() {
        return this.server;
      },
    };
    // Taken off the view on purpose: the view binds methods to the live environment.
    // eslint-disable-next-line @typescript-eslint/unbound-method
    const { name } = view as unknown as { name(): string };
    expect([view.server, name()]).toEqual(['https://127.0.0.1:6443', 'https://127.0.0.1:6443']);
  });

  it('throws ERR_ENVTEST_NOT_RUNNING when read while there is none, and is no thenable', () => {
    const view = environmentView(() => undefined, 'useEnvironment()');
    expect(() => view.server).toThrow(
      expect.objectContaining({
        code: 'ERR_ENVTEST_NOT_RUNNING',
        message: expect.stringContaining('useEnvironment().server') as unknown,
      }),
    );
    expect((view as unknown as { then?: unknown }).then).toBeUndefined();
  });
});

describe('RunnerFile.useTestNamespace', () => {
  for (const order of ['last-registered-first', 'first-registered-first'] as const) {
    it(`'file' starts deletions after each test and waits for all at the end (${order})`, async () => {
      const log: string[] = [];
      const { environment } = fakeEnvironment(log);
      const recorded = new RecordedHooks();
      const file = new RunnerFile({ hooks: recorded.hooks, sharedKubeconfig: () => undefined });
      const namespace = file.useTestNamespace({ environment });
      const names: string[] = [];
      const errors = await recorded.runFile(
        [() => void names.push(namespace.name), () => void names.push(namespace.name)],
        order,
      );
      expect(errors).toEqual([]);
      expect(names).toEqual(['ns-0', 'ns-1']);
      expect(log).toEqual([
        'create ns-0',
        'delete ns-0 wait=false',
        'create ns-1',
        'delete ns-1 wait=false',
        'delete ns-0 wait=true',
        'delete ns-1 wait=true',
      ]);
      expect(() => namespace.name).toThrow(
        expect.objectContaining({ code: 'ERR_ENVTEST_NOT_RUNNING' }),
      );
    });
  }

  it("'test' waits after each test and false never waits", async () => {
    for (const [waitForDeletion, expected] of [
      ['test', ['create ns-0', 'delete ns-0 wait=true']],
      [false, ['create ns-0', 'delete ns-0 wait=false']],
    ] as const) {
      const log: string[] = [];
      const recorded = new RecordedHooks();
      const file = new RunnerFile({ hooks: recorded.hooks, sharedKubeconfig: () => undefined });
      file.useTestNamespace({ environment: fakeEnvironment(log).environment, waitForDeletion });
      expect(await recorded.runFile([() => {}], 'last-registered-first')).toEqual([]);
      expect(log).toEqual(expected);
    }
  });

  it('passes deletionTimeoutMs to every waiting delete', async () => {
    const log: string[] = [];
    const { environment, namespaces } = fakeEnvironment(log);
    const recorded = new RecordedHooks();
    const file = new RunnerFile({ hooks: recorded.hooks, sharedKubeconfig: () => undefined });
    file.useTestNamespace({ environment, deletionTimeoutMs: 1234 });
    await recorded.runFile([() => {}], 'last-registered-first');
    expect(namespaces[0]!.deletes).toEqual([{ wait: false }, { wait: true, timeoutMs: 1234 }]);
  });

  it('reports every stuck namespace of the file in one error', async () => {
    const log: string[] = [];
    const { environment } = fakeEnvironment(log, (index) => index !== 1);
    const recorded = new RecordedHooks();
    const file = new RunnerFile({ hooks: recorded.hooks, sharedKubeconfig: () => undefined });
    file.useTestNamespace({ environment });
    const errors = await recorded.runFile([() => {}, () => {}, () => {}], 'last-registered-first');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({
      code: 'ERR_ENVTEST_NAMESPACE_STUCK',
      message:
        '2 namespaces of this file did not go away:\n- namespace ns-0 is stuck\n- namespace ns-2 is stuck',
    });
  });

  it('refuses an unknown waitForDeletion', () => {
    const file = new RunnerFile({
      hooks: new RecordedHooks().hooks,
      sharedKubeconfig: () => undefined,
    });
    expect(() => file.useTestNamespace({ waitForDeletion: 'suite' as unknown as 'file' })).toThrow(
      expect.objectContaining({ code: 'ERR_ENVTEST_INVALID_OPTIONS' }),
    );
  });
});

describe('RunnerFile.useEnvironment', () => {
  it('refuses options without own: true (shared options belong to the global setup)', () => {
    const file = new RunnerFile({
      hooks: new RecordedHooks().hooks,
      sharedKubeconfig: () => undefined,
    });
    expect(() => file.useEnvironment({ nodes: 0 } as unknown as { own: true })).toThrow(
      expect.objectContaining({
        code: 'ERR_ENVTEST_INVALID_OPTIONS',
        message: expect.stringContaining('own: true') as unknown,
      }),
    );
  });

  it('environment() without a shared plane says how to get one', () => {
    const file = new RunnerFile({
      hooks: new RecordedHooks().hooks,
      sharedKubeconfig: () => undefined,
    });
    expect(() => file.environment()).toThrow(
      expect.objectContaining({
        code: 'ERR_ENVTEST_NOT_RUNNING',
        message: expect.stringContaining('@k/envtest/vitest/global-setup') as unknown,
      }),
    );
  });
});
