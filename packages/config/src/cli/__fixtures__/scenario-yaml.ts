/**
 * A small YAML/JSON emitter for generated kubeconfig files. It controls what a real file may
 * contain and a library emitter would never produce: plain YAML 1.1 scalars (`yes`, `on`,
 * `0x1F`, `~`), mixed quoting, flow and block collections, both sequence indentations, and
 * comments.
 */

/** Raw is literal YAML text for a value, with the value a JSON file gets instead. */
export class Raw {
  constructor(
    readonly yaml: string,
    readonly json: unknown,
  ) {}
}

/** Random is a seeded PRNG (mulberry32): the same seed always gives the same scenario. */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(limit: number): number {
    return Math.floor(this.next() * limit);
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[this.int(items.length)];
    if (item === undefined) throw new Error('pick from an empty list');
    return item;
  }

  shuffle<T>(items: readonly T[]): T[] {
    const copy = [...items];
    for (let index = copy.length - 1; index > 0; index--) {
      const other = this.int(index + 1);
      [copy[index], copy[other]] = [copy[other] as T, copy[index] as T];
    }
    return copy;
  }
}

/** YamlStyle is the per-file formatting choice. */
export interface YamlStyle {
  indentSequences: boolean;
  flowProbability: number;
  commentProbability: number;
  random: Random;
}

const YAML11_WORDS = new Set(
  'y Y yes Yes YES n N no No NO true True TRUE false False FALSE on On ON off Off OFF null Null NULL ~ <<'.split(
    ' ',
  ),
);

function isSafePlain(text: string): boolean {
  return (
    /^[A-Za-z_./][A-Za-z0-9_./:@+-]*$/.test(text) &&
    !YAML11_WORDS.has(text) &&
    !text.endsWith(':') &&
    !/^\.(?:inf|nan)$/i.test(text)
  );
}

function scalar(value: unknown, style: YamlStyle): string {
  if (value instanceof Raw) return value.yaml;
  if (value === null) return style.random.pick(['null', '~', 'null']);
  if (typeof value === 'string') {
    const choice = style.random.next();
    if (isSafePlain(value) && choice < 0.7) return value;
    if (choice < 0.85 || value.includes('\n')) return JSON.stringify(value);
    return `'${value.replaceAll("'", "''")}'`;
  }
  return JSON.stringify(value);
}

function isCollection(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !(value instanceof Raw);
}

function isEmpty(value: object): boolean {
  return Array.isArray(value) ? value.length === 0 : Object.keys(value).length === 0;
}

function flow(value: unknown, style: YamlStyle): string {
  if (!isCollection(value)) return scalar(value, style);
  if (Array.isArray(value)) return `[${value.map((item) => flow(item, style)).join(', ')}]`;
  const pairs = Object.entries(value).map(([key, entry]) => `${key}: ${flow(entry, style)}`);
  return `{${pairs.join(', ')}}`;
}

function comment(style: YamlStyle, indent: string): string[] {
  return style.random.chance(style.commentProbability)
    ? [`${indent}# ${style.random.pick(['note', 'edited by hand', 'do not touch', 'TODO'])}`]
    : [];
}

function blockMapping(value: Record<string, unknown>, indent: string, style: YamlStyle): string[] {
  const lines: string[] = [];
  for (const [key, entry] of Object.entries(value)) {
    lines.push(...comment(style, indent));
    lines.push(...blockEntry(`${indent}${key}:`, entry, indent, style));
  }
  return lines;
}

function blockEntry(head: string, value: unknown, indent: string, style: YamlStyle): string[] {
  if (!isCollection(value) || isEmpty(value) || style.random.chance(style.flowProbability)) {
    if (value === null && style.random.chance(0.3)) return [head];
    return [`${head} ${flow(value, style)}`];
  }
  if (Array.isArray(value)) {
    const itemIndent = style.indentSequences ? `${indent}  ` : indent;
    return [head, ...value.flatMap((item) => blockItem(item, itemIndent, style))];
  }
  return [head, ...blockMapping(value as Record<string, unknown>, `${indent}  `, style)];
}

function blockItem(item: unknown, indent: string, style: YamlStyle): string[] {
  if (!isCollection(item) || isEmpty(item) || Array.isArray(item)) {
    return [`${indent}- ${flow(item, style)}`];
  }
  const lines = blockMapping(item as Record<string, unknown>, `${indent}  `, style).filter(
    (line) => !line.trimStart().startsWith('#'),
  );
  const [first = '', ...rest] = lines;
  return [`${indent}- ${first.slice(indent.length + 2)}`, ...rest];
}

/** emitYaml prints a document tree as block YAML in the given style. */
export function emitYaml(tree: Record<string, unknown>, style: YamlStyle): string {
  return `${blockMapping(tree, '', style).join('\n')}\n`;
}

/** toJsonValue replaces every Raw by its JSON value and drops keys whose JSON value is undefined. */
export function toJsonValue(value: unknown): unknown {
  if (value instanceof Raw) return value.json;
  if (Array.isArray(value)) return value.map(toJsonValue);
  if (isCollection(value)) {
    const result: Record<string, unknown> = {};
    for (const [key, entry] of Object.entries(value)) {
      const converted = toJsonValue(entry);
      if (converted !== undefined) result[key] = converted;
    }
    return result;
  }
  return value;
}
