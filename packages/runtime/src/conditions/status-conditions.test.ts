import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  conditionTime,
  findStatusCondition,
  isStatusConditionFalse,
  isStatusConditionPresentAndEqual,
  isStatusConditionTrue,
  removeStatusCondition,
  setStatusCondition,
  type StatusCondition,
} from './status-conditions.js';

const EARLIER = '2026-01-01T00:00:00Z';
const LATER = '2026-01-01T00:05:00Z';

function condition(overrides: Partial<StatusCondition> = {}): StatusCondition {
  return {
    type: 'Ready',
    status: 'True',
    reason: 'AsExpected',
    message: '',
    lastTransitionTime: EARLIER,
    ...overrides,
  };
}

describe('setStatusCondition', () => {
  it('appends a condition of a new type, stamped now unless it brings its own time', () => {
    const conditions: StatusCondition[] = [condition({ type: 'Available' })];
    const before = Date.now();
    expect(
      setStatusCondition(conditions, {
        type: 'Ready',
        status: 'False',
        reason: 'Starting',
        message: 'warming up',
      }),
    ).toBe(true);
    expect(conditions.map((each) => each.type)).toEqual(['Available', 'Ready']);
    const stamped = Date.parse(conditions[1]!.lastTransitionTime);
    expect(stamped).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(conditions[1]!.lastTransitionTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    setStatusCondition(conditions, { ...condition({ type: 'Synced' }), lastTransitionTime: LATER });
    expect(findStatusCondition(conditions, 'Synced')?.lastTransitionTime).toBe(LATER);
  });

  it('keeps lastTransitionTime while the status stays and follows reason, message and generation', () => {
    const conditions = [condition({ observedGeneration: 1 })];
    const changed = setStatusCondition(conditions, {
      type: 'Ready',
      status: 'True',
      reason: 'StillFine',
      message: 'all replicas ready',
      observedGeneration: 2,
      lastTransitionTime: LATER,
    });
    expect(changed).toBe(true);
    expect(conditions).toEqual([
      condition({
        reason: 'StillFine',
        message: 'all replicas ready',
        observedGeneration: 2,
        lastTransitionTime: EARLIER,
      }),
    ]);
  });

  it('moves lastTransitionTime when the status changes', () => {
    const conditions = [condition()];
    setStatusCondition(conditions, {
      ...condition({ status: 'False' }),
      lastTransitionTime: LATER,
    });
    expect(conditions[0]).toMatchObject({ status: 'False', lastTransitionTime: LATER });
  });

  it('reports no change for the same observation and leaves the array alone', () => {
    const original = condition({ observedGeneration: 3 });
    const conditions = [original];
    expect(setStatusCondition(conditions, { ...original, lastTransitionTime: LATER })).toBe(false);
    expect(conditions[0]).toBe(original);
  });

  it('drops observedGeneration when the update has none, as a zero generation in Go', () => {
    const conditions = [condition({ observedGeneration: 4 })];
    expect(setStatusCondition(conditions, condition())).toBe(true);
    expect(conditions[0]).not.toHaveProperty('observedGeneration');
  });
});

describe('removeStatusCondition', () => {
  it('removes the type and says whether it was there', () => {
    const conditions = [
      condition({ type: 'A' }),
      condition({ type: 'B' }),
      condition({ type: 'C' }),
    ];
    expect(removeStatusCondition(conditions, 'B')).toBe(true);
    expect(conditions.map((each) => each.type)).toEqual(['A', 'C']);
    expect(removeStatusCondition(conditions, 'B')).toBe(false);
    expect(removeStatusCondition([], 'B')).toBe(false);
  });
});

describe('isStatusCondition*', () => {
  it('needs the condition present with exactly that status', () => {
    const conditions = [
      condition({ type: 'Ready', status: 'True' }),
      condition({ type: 'Degraded', status: 'False' }),
      condition({ type: 'Progressing', status: 'Unknown' }),
    ];
    expect(isStatusConditionTrue(conditions, 'Ready')).toBe(true);
    expect(isStatusConditionFalse(conditions, 'Ready')).toBe(false);
    expect(isStatusConditionFalse(conditions, 'Degraded')).toBe(true);
    expect(isStatusConditionTrue(conditions, 'Progressing')).toBe(false);
    expect(isStatusConditionFalse(conditions, 'Progressing')).toBe(false);
    expect(isStatusConditionPresentAndEqual(conditions, 'Progressing', 'Unknown')).toBe(true);
    expect(isStatusConditionTrue(conditions, 'Missing')).toBe(false);
    expect(isStatusConditionFalse(undefined, 'Ready')).toBe(false);
  });
});

describe('conditionTime', () => {
  it('is RFC 3339 in UTC at whole seconds, as metav1.Time serializes', () => {
    expect(conditionTime(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678)))).toBe(
      '2026-01-02T03:04:05Z',
    );
  });
});

// Properties over arbitrary lists (unique types, as the API server validates) and updates.
const TYPES = ['Ready', 'Available', 'Progressing', 'Degraded'];
const times = fc
  .integer({ min: Date.UTC(2020, 0, 1) / 1000, max: Date.UTC(2030, 0, 1) / 1000 })
  .map((seconds) => conditionTime(new Date(seconds * 1000)));
const fields = {
  status: fc.constantFrom('True', 'False', 'Unknown'),
  reason: fc.constantFrom('A', 'B'),
  message: fc.constantFrom('', 'm'),
  observedGeneration: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
};
const arbitraryCondition = fc
  .record({ type: fc.constantFrom(...TYPES), lastTransitionTime: times, ...fields })
  .map(withoutUndefined);
const arbitraryList = fc.uniqueArray(arbitraryCondition, {
  selector: (each) => each.type,
  maxLength: TYPES.length,
});
const arbitraryUpdate = fc
  .record({
    type: fc.constantFrom(...TYPES),
    lastTransitionTime: fc.option(times, { nil: undefined }),
    ...fields,
  })
  .map(withoutUndefined);

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
}

function frozen(conditions: StatusCondition[]): StatusCondition[] {
  return conditions.map((each) => Object.freeze({ ...each }));
}

describe('status condition properties (fast-check)', () => {
  it('set leaves exactly one condition of the type, carrying the update, others untouched', () => {
    fc.assert(
      fc.property(arbitraryList, arbitraryUpdate, (list, update) => {
        const before = frozen(list);
        const conditions = [...before];
        setStatusCondition(conditions, update);
        const ofType = conditions.filter((each) => each.type === update.type);
        expect(ofType).toHaveLength(1);
        expect({ ...ofType[0], lastTransitionTime: undefined }).toEqual({
          ...update,
          lastTransitionTime: undefined,
        });
        // Every other condition is the same object, in the same order.
        expect(conditions.filter((each) => each.type !== update.type)).toEqual(
          before.filter((each) => each.type !== update.type),
        );
        for (const each of conditions)
          if (each.type !== update.type) expect(before).toContain(each);
      }),
    );
  });

  it('lastTransitionTime moves exactly when the status changes (or the type is new)', () => {
    fc.assert(
      fc.property(arbitraryList, arbitraryUpdate, (list, update) => {
        const previous = findStatusCondition(list, update.type);
        const conditions = frozen(list);
        setStatusCondition(conditions, update);
        const time = findStatusCondition(conditions, update.type)!.lastTransitionTime;
        if (previous && previous.status === update.status) {
          expect(time).toBe(previous.lastTransitionTime);
        } else if (update.lastTransitionTime !== undefined) {
          expect(time).toBe(update.lastTransitionTime);
        } else {
          expect(Math.abs(Date.parse(time) - Date.now())).toBeLessThan(5_000);
        }
      }),
    );
  });

  it('returns true exactly when the list changed, and a repeat changes nothing', () => {
    fc.assert(
      fc.property(arbitraryList, arbitraryUpdate, (list, update) => {
        const conditions = frozen(list);
        const snapshot = structuredClone(conditions);
        const changed = setStatusCondition(conditions, update);
        expect(changed).toBe(JSON.stringify(conditions) !== JSON.stringify(snapshot));
        expect(setStatusCondition(conditions, update)).toBe(false);
      }),
    );
  });

  it('remove drops only that type, and the is* helpers agree with find', () => {
    fc.assert(
      fc.property(arbitraryList, fc.constantFrom(...TYPES), (list, type) => {
        const conditions = frozen(list);
        const present = findStatusCondition(conditions, type);
        expect(isStatusConditionTrue(conditions, type)).toBe(present?.status === 'True');
        expect(isStatusConditionFalse(conditions, type)).toBe(present?.status === 'False');
        expect(removeStatusCondition(conditions, type)).toBe(present !== undefined);
        expect(findStatusCondition(conditions, type)).toBeUndefined();
        expect(conditions).toEqual(list.filter((each) => each.type !== type));
      }),
    );
  });
});
