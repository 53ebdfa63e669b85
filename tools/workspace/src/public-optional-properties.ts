import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';

/** WORKSPACE is the repository's root. */
const WORKSPACE = join(import.meta.dirname, '../../..');

/** Manifest is what is read of a package's package.json. */
interface Manifest {
  name: string;
  private?: boolean;
  exports?: Record<string, unknown>;
}

/** EntryPoint is one public module: a package's subpath and the source file behind it. */
export interface EntryPoint {
  /** specifier is what a user imports (`@k/rest`, `@k/clientset/apps/v1`). */
  specifier: string;
  file: string;
}

/**
 * publicEntryPoints lists the source file of every subpath export (its `@k/source` condition) of
 * every published package under packages/.
 */
export function publicEntryPoints(): EntryPoint[] {
  const entryPoints: EntryPoint[] = [];
  for (const name of readdirSync(join(WORKSPACE, 'packages')).sort()) {
    const directory = join(WORKSPACE, 'packages', name);
    const manifest = JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8')) as Manifest;
    if (manifest.private) continue;
    for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
      const source =
        typeof target === 'object' && target !== null
          ? (target as Record<string, unknown>)['@k/source']
          : undefined;
      if (typeof source !== 'string') continue;
      entryPoints.push({
        specifier: subpath === '.' ? manifest.name : `${manifest.name}${subpath.slice(1)}`,
        file: join(directory, source),
      });
    }
  }
  return entryPoints;
}

/** OptionalPropertyFinding is an optional property of a public type that refuses `undefined`. */
export interface OptionalPropertyFinding {
  /** property is `Owner.name`. */
  property: string;
  /** location is `packages/<name>/src/<file>.ts:<line>`. */
  location: string;
  /** type is the property's type as written (or how it was made optional). */
  type: string;
}

/**
 * findOptionalPropertiesWithoutUndefined type-checks the public entry points with
 * `exactOptionalPropertyTypes` on and walks every type a user can reach from their exports
 * (exported types, classes and functions; their properties, parameters, return types and type
 * arguments, transitively). It returns each optional property declared under `judged` (default
 * packages/) whose type does not accept `undefined`, so a user with that flag could not pass a
 * `T | undefined` value through to it: `field?: T` instead of `field?: T | undefined`. Types
 * declared elsewhere (TypeScript's lib, dependencies) are passed through, not judged. Throws when
 * an entry point has a diagnostic: a module that does not resolve would be walked as `any`, and
 * nothing in it judged.
 */
export function findOptionalPropertiesWithoutUndefined(
  entryPoints: readonly EntryPoint[],
  judged: string = join(WORKSPACE, 'packages'),
): OptionalPropertyFinding[] {
  const configuration = ts.getParsedCommandLineOfConfigFile(
    join(WORKSPACE, 'tsconfig.base.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
  );
  const options: ts.CompilerOptions = {
    ...configuration?.options,
    exactOptionalPropertyTypes: true,
    noEmit: true,
  };
  const program = ts.createProgram(
    entryPoints.map((entryPoint) => entryPoint.file),
    options,
  );
  const checker = program.getTypeChecker();
  const undefinedType = checker.getUndefinedType();
  const judgedFolder = join(judged, sep);
  const isPackageSource = (file: string): boolean =>
    file.startsWith(judgedFolder) && !file.includes(`${sep}node_modules${sep}`);

  const diagnostics = entryPoints.flatMap((entryPoint) => {
    const source = program.getSourceFile(entryPoint.file);
    return source
      ? [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)]
      : [];
  });
  if (diagnostics.length > 0) {
    const host: ts.FormatDiagnosticsHost = {
      getCanonicalFileName: (file) => file,
      getCurrentDirectory: () => WORKSPACE,
      getNewLine: () => '\n',
    };
    throw new Error(
      `the entry points do not type-check:\n${ts.formatDiagnostics(diagnostics, host)}`,
    );
  }

  const findings = new Map<ts.Node, OptionalPropertyFinding>();
  const visitedTypes = new Set<ts.Type>();
  const pending: ts.Type[] = [];
  const visit = (type: ts.Type | undefined): void => {
    if (type && !visitedTypes.has(type)) {
      visitedTypes.add(type);
      pending.push(type);
    }
  };

  const judge = (owner: string, property: ts.Symbol): void => {
    for (const declaration of property.declarations ?? []) {
      const file = declaration.getSourceFile().fileName;
      if (!isPackageSource(file) || findings.has(declaration)) continue;
      const { line } = declaration
        .getSourceFile()
        .getLineAndCharacterOfPosition(declaration.getStart());
      const location = `${relative(WORKSPACE, file).split(sep).join('/')}:${line + 1}`;
      const name = `${owner}.${property.name}`;
      if (
        (ts.isPropertySignature(declaration) || ts.isPropertyDeclaration(declaration)) &&
        declaration.questionToken
      ) {
        if (!declaration.type) continue;
        const declared = checker.getTypeFromTypeNode(declaration.type);
        if (!checker.isTypeAssignableTo(undefinedType, declared)) {
          findings.set(declaration, {
            property: name,
            location,
            type: declaration.type.getText(),
          });
        }
      } else if (
        !(ts.isMethodSignature(declaration) || ts.isMethodDeclaration(declaration)) ||
        !declaration.questionToken
      ) {
        // Optional, but not as declared here: a mapped type (Partial<…>) made it optional, and
        // such a property refuses `undefined` under the flag unless its own type accepts it.
        const declared = checker.getTypeOfSymbolAtLocation(property, declaration);
        if (!checker.isTypeAssignableTo(undefinedType, declared)) {
          findings.set(declaration, {
            property: name,
            location,
            type: 'made optional by a mapped type (Partial<…>)',
          });
        }
      }
    }
  };

  const ownerName = (type: ts.Type): string =>
    type.aliasSymbol?.name ?? type.getSymbol()?.name ?? checker.typeToString(type);

  const walkSignature = (signature: ts.Signature): void => {
    for (const parameter of signature.getParameters()) visit(checker.getTypeOfSymbol(parameter));
    visit(checker.getReturnTypeOfSignature(signature));
    for (const parameter of signature.getTypeParameters() ?? []) {
      visit(checker.getBaseConstraintOfType(parameter));
    }
  };

  const walk = (type: ts.Type): void => {
    if (type.isUnionOrIntersection()) {
      for (const part of type.types) visit(part);
      return;
    }
    for (const argument of type.aliasTypeArguments ?? []) visit(argument);
    if (type.flags & ts.TypeFlags.Object) {
      const object = type as ts.ObjectType;
      if (object.objectFlags & ts.ObjectFlags.Reference) {
        for (const argument of checker.getTypeArguments(object as ts.TypeReference))
          visit(argument);
      }
      const declarations = type.getSymbol()?.declarations ?? [];
      const declaredHere =
        declarations.length === 0 ||
        declarations.some((declaration) => isPackageSource(declaration.getSourceFile().fileName));
      if (!declaredHere) return;
      const owner = ownerName(type);
      for (const property of checker.getPropertiesOfType(type)) {
        const declaration = property.valueDeclaration ?? property.declarations?.[0];
        if (property.name.startsWith('#') || property.name.startsWith('__@')) continue;
        if (
          declaration &&
          ts.getCombinedModifierFlags(declaration) &
            (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)
        ) {
          continue;
        }
        if (property.flags & ts.SymbolFlags.Optional) judge(owner, property);
        visit(checker.getTypeOfSymbol(property));
      }
      for (const signature of type.getCallSignatures()) walkSignature(signature);
      for (const signature of type.getConstructSignatures()) walkSignature(signature);
      const numberIndex = type.getNumberIndexType();
      const stringIndex = type.getStringIndexType();
      visit(numberIndex);
      visit(stringIndex);
    }
  };

  for (const entryPoint of entryPoints) {
    const source = program.getSourceFile(entryPoint.file);
    const module = source && checker.getSymbolAtLocation(source);
    if (!module) throw new Error(`${entryPoint.specifier}: no module at ${entryPoint.file}`);
    for (let exported of checker.getExportsOfModule(module)) {
      if (exported.flags & ts.SymbolFlags.Alias) exported = checker.getAliasedSymbol(exported);
      if (exported.flags & (ts.SymbolFlags.Type | ts.SymbolFlags.Class)) {
        visit(checker.getDeclaredTypeOfSymbol(exported));
      }
      if (exported.flags & ts.SymbolFlags.Value) visit(checker.getTypeOfSymbol(exported));
    }
  }
  for (let type = pending.pop(); type; type = pending.pop()) walk(type);
  return [...findings.values()].sort((a, b) =>
    a.location.localeCompare(b.location, 'en', { numeric: true }),
  );
}
