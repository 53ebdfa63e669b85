import type { Lease } from '@k/clientset/coordination/v1';
import { ApiError } from '@k/rest';
import type { LeaseClient } from '../leader-elector.js';

const status = (code: number, reason: string) =>
  new ApiError({ kind: 'Status', status: 'Failure', code, reason, message: `leases: ${reason}` });

/** LeaseServer keeps one Lease as the API server would: a resourceVersion per write, 409 on a stale one. */
export class LeaseServer implements LeaseClient {
  lease: Lease | undefined;
  gets = 0;
  updates = 0;
  conflicts = 0;
  /** afterNextUpdate runs once, after the next update was stored; an error it returns is the answer instead. */
  afterNextUpdate: (() => Error | undefined) | undefined;
  #version = 0;

  get(): Promise<Lease> {
    this.gets += 1;
    return this.lease
      ? Promise.resolve(structuredClone(this.lease))
      : Promise.reject(status(404, 'NotFound'));
  }

  create(lease: Lease): Promise<Lease> {
    this.lease = this.#stored(lease);
    return Promise.resolve(structuredClone(this.lease));
  }

  update(lease: Lease): Promise<Lease> {
    if (lease.metadata?.resourceVersion !== this.lease?.metadata?.resourceVersion) {
      this.conflicts += 1;
      return Promise.reject(status(409, 'Conflict'));
    }
    this.updates += 1;
    this.lease = this.#stored(lease);
    const after = this.afterNextUpdate;
    this.afterNextUpdate = undefined;
    const lost = after?.();
    return lost ? Promise.reject(lost) : Promise.resolve(structuredClone(this.lease));
  }

  /** takeOver is another replica taking the Lease for `seconds`: the holder's renewals now fail. */
  takeOver(identity: string, seconds: number): void {
    this.lease = this.#stored({
      ...this.lease!,
      spec: { ...this.lease!.spec, holderIdentity: identity, leaseDurationSeconds: seconds },
    });
  }

  /** touchByOthers is someone else's write (a label): the holder's copy is now stale. */
  touchByOthers(): void {
    this.lease = this.#stored({
      ...this.lease!,
      metadata: { ...this.lease!.metadata, labels: { touched: 'yes' } },
    });
  }

  #stored(lease: Lease): Lease {
    this.#version += 1;
    return {
      ...structuredClone(lease),
      metadata: { ...lease.metadata, resourceVersion: String(this.#version) },
    };
  }
}

