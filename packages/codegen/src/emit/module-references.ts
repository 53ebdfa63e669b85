import type { TypeReferences } from './type-emitter.js';
import { pascalCase } from './names.js';
import { compareStrings } from './stable-json.js';

/** Location of a referenced type: its module (directory below `generated/`) and name. */
export interface ReferencedType {
  module: string;
  name: string;
}

/**
 * ModuleReferences resolves type references from one generated module and collects the imports
 * they need. An imported name that collides with a local one (or with another import) is
 * aliased with its module's name, e.g. `CoreV1Event`.
 */
export class ModuleReferences implements TypeReferences {
  readonly #module: string;
  readonly #localNames: ReadonlySet<string>;
  readonly #locate: (ref: string) => ReferencedType;
  readonly #wellKnown: Readonly<Record<'IntOrString' | 'ObjectMeta', ReferencedType>>;
  /** module → (name → alias) */
  readonly #imports = new Map<string, Map<string, string>>();
  readonly #aliases = new Map<string, string>();

  constructor(options: {
    module: string;
    localNames: ReadonlySet<string>;
    locate: (ref: string) => ReferencedType;
    wellKnown: Readonly<Record<'IntOrString' | 'ObjectMeta', ReferencedType>>;
  }) {
    this.#module = options.module;
    this.#localNames = options.localNames;
    this.#locate = options.locate;
    this.#wellKnown = options.wellKnown;
  }

  reference(ref: string): string {
    return this.use(this.#locate(ref));
  }

  named(name: 'IntOrString' | 'ObjectMeta'): string {
    return this.use(this.#wellKnown[name]);
  }

  /** use returns the local name of `type`, recording an import when it lives in another module. */
  use(type: ReferencedType): string {
    if (type.module === this.#module) return type.name;
    const key = `${type.module}:${type.name}`;
    const existing = this.#aliases.get(key);
    if (existing) return existing;
    const taken = new Set([...this.#localNames, ...this.#aliases.values()]);
    const alias = taken.has(type.name)
      ? `${pascalCase(type.module.replace('/', '-'))}${type.name}`
      : type.name;
    this.#aliases.set(key, alias);
    const names = this.#imports.get(type.module) ?? new Map<string, string>();
    names.set(type.name, alias);
    this.#imports.set(type.module, names);
    return alias;
  }

  /** specifiers returns the import specifiers (`Name` or `Name as Alias`) taken from `module`, sorted. */
  specifiers(module: string): string[] {
    return [...(this.#imports.get(module) ?? new Map<string, string>())]
      .sort(([a], [b]) => compareStrings(a, b))
      .map(([name, alias]) => (name === alias ? name : `${name} as ${alias}`));
  }

  /** importLines renders `import type { … } from '<prefix><module>/<file>'` lines, sorted. */
  importLines(modulePath: (module: string) => string): string {
    let text = '';
    for (const module of [...this.#imports.keys()].sort(compareStrings)) {
      text += `import type { ${this.specifiers(module).join(', ')} } from '${modulePath(module)}';\n`;
    }
    return text;
  }
}
