import { RuntimeError } from '../errors.js';
import type { ConversionDefinition } from './conversion.js';
import { DEFAULT_MAX_DEPTH } from './conversion.js';
import { copyJson, isJsonObject, jsonDifferences, ownValue } from './conversion-json.js';
import { ConversionTable } from './conversion-table.js';

/** RoundTripDifference is one place where an object came back different from a round trip. */
export interface RoundTripDifference {
  /** through is the version the object was converted to and back from. */
  readonly through: string;
  /** path of the place, e.g. `spec.hosts[1]` or `metadata.annotations["demo.k.io/x"]`; `''` is the whole object. */
  readonly path: string;
  /** expected is the value the object had there (`undefined`: absent). */
  readonly expected: unknown;
  /** actual is the value it came back with (`undefined`: absent). */
  readonly actual: unknown;
}

/** Differences listed per version at most: the first few say what is lost. */
const MAX_DIFFERENCES = 20;

/**
 * checkRoundTrip converts `object` (of any version of `definition`) to every other version and
 * back, as the conversion webhook would (metadata put back, apiVersion and kind set), and lists
 * where it came back different, compared as JSON (key order and `undefined` values ignored); an
 * empty list means every version holds the object. Use it in your tests, over many generated
 * objects (a property test), to prove no version loses data. `object` is not changed.
 *
 * @throws RuntimeError `ERR_RUNTIME_CONVERSION` when a converter throws or returns no object (or
 * the object is of another kind or an unknown version); `ERR_RUNTIME_INVALID_ARGUMENT` when
 * `object` is not a JSON object or nests deeper than 10,000 levels.
 */
export function checkRoundTrip<Hub>(
  definition: ConversionDefinition<Hub>,
  object: unknown,
): RoundTripDifference[] {
  const table = new ConversionTable([definition], DEFAULT_MAX_DEPTH);
  const start = copyJson(object, DEFAULT_MAX_DEPTH);
  if (!isJsonObject(start)) {
    throw new RuntimeError(
      'ERR_RUNTIME_INVALID_ARGUMENT',
      `checkRoundTrip takes a JSON object no deeper than ${DEFAULT_MAX_DEPTH} levels`,
    );
  }
  const apiVersion = String(ownValue(start, 'apiVersion'));
  const converted = (value: unknown, to: string) => {
    const result = table.convert(value, to, true);
    if ('failure' in result) throw result.failure;
    return result.object;
  };
  // The object as the webhook returns it unchanged: what every round trip must give back.
  const expected = converted(start, apiVersion);
  const differences: RoundTripDifference[] = [];
  for (const version of table.versionsOf(definition.group, definition.kind)) {
    const to = `${definition.group}/${version}`;
    if (to === apiVersion) continue;
    const back = converted(converted(start, to), apiVersion);
    for (const difference of jsonDifferences(expected, back, MAX_DIFFERENCES)) {
      differences.push({ through: version, ...difference });
    }
  }
  return differences;
}
