import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import type ts from 'typescript';

/** WORKSPACE is the repository's root. */
const WORKSPACE = join(import.meta.dirname, '../../..');

/**
 * STRICT_USER_OPTIONS are the settings of the strictest user project: a Node program (module
 * NodeNext) with `strict` and what strict users turn on beside it (the flags of
 * `@tsconfig/strictest` that judge k's types: unused names are left out, as README snippets show
 * values without using them, and so is noPropertyAccessFromIndexSignature, which judges how the
 * user spells `process.env.X` and `configMap.data.key`, whatever the types). `@k/source` resolves the packages to
 * the sources their declarations are built from (no build needed); only the user's files are
 * judged.
 */
const STRICT_USER_OPTIONS = {
  target: 'ES2022',
  lib: ['ES2023'],
  module: 'NodeNext',
  moduleResolution: 'NodeNext',
  customConditions: ['@k/source'],
  types: ['node'],
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  noImplicitOverride: true,
  noImplicitReturns: true,
  noFallthroughCasesInSwitch: true,
  verbatimModuleSyntax: true,
  isolatedModules: true,
  esModuleInterop: true,
  forceConsistentCasingInFileNames: true,
  skipLibCheck: true,
  noEmit: true,
} as const;

/** UserModule is one module of the user project: a README snippet or an example's file. */
export interface UserModule {
  /** name says where it is: `packages/rest/README.md:25` or `packages/rest/examples/x.ts`. */
  name: string;
  /** file is its path (a README snippet's is virtual, in its package's examples/ folder). */
  file: string;
  text: string;
  /** snippet is true for a README block: its names may come from the reader's code around it. */
  snippet: boolean;
}

/** READMES are the READMEs whose ```ts blocks are checked: the root's and every package's. */
function readmes(): string[] {
  const packages = readdirSync(join(WORKSPACE, 'packages'))
    .sort()
    .map((name) => join(WORKSPACE, 'packages', name, 'README.md'));
  return [join(WORKSPACE, 'README.md'), ...packages];
}

/**
 * readmeSnippets returns every ```ts block of the root's and the packages' READMEs as a module
 * (`export {}` appended, so top-level await is allowed) placed beside the package's examples, so
 * a relative import of an example's module (`./generated/…`) resolves as it does there.
 */
export function readmeSnippets(): UserModule[] {
  const modules: UserModule[] = [];
  for (const readme of readmes()) {
    let text: string;
    try {
      text = readFileSync(readme, 'utf8');
    } catch {
      continue;
    }
    const lines = text.split('\n');
    for (let index = 0; index < lines.length; index++) {
      if (lines[index] !== '```ts') continue;
      const end = lines.indexOf('```', index + 1);
      if (end < 0) throw new Error(`${readme}:${index + 1}: a \`\`\`ts block is not closed`);
      const name = `${relative(WORKSPACE, readme).split(sep).join('/')}:${index + 1}`;
      modules.push({
        name,
        file: join(dirname(readme), 'examples', `readme-snippet-${index + 1}.ts`),
        text: `${lines.slice(index + 1, end).join('\n')}\nexport {};\n`,
        snippet: true,
      });
      index = end;
    }
  }
  return modules;
}

/** exampleModules returns every module under `packages/<name>/examples`, as users get them. */
export function exampleModules(): UserModule[] {
  const modules: UserModule[] = [];
  for (const name of readdirSync(join(WORKSPACE, 'packages')).sort()) {
    const directory = join(WORKSPACE, 'packages', name, 'examples');
    let files: string[];
    try {
      files = readdirSync(directory, { recursive: true, encoding: 'utf8' });
    } catch {
      continue;
    }
    for (const file of files.sort()) {
      if (!file.endsWith('.ts') || file.endsWith('.d.ts')) continue;
      const path = join(directory, file);
      modules.push({
        name: relative(WORKSPACE, path).split(sep).join('/'),
        file: path,
        text: readFileSync(path, 'utf8'),
        snippet: false,
      });
    }
  }
  return modules;
}

/**
 * UNRESOLVED_NAME_CODES are the diagnostics of a name a snippet takes from the reader's code
 * around it (`cs`, `manager`): Cannot find name, … Did you mean, Cannot find namespace.
 */
const UNRESOLVED_NAME_CODES = new Set([2304, 2552, 2503, 18004]);

/**
 * CONTEXT_CODES are the diagnostics that follow from a free name in a snippet with one: a
 * callback's parameters are implicitly `any` when the call's receiver is the reader's (`cs`).
 */
const CONTEXT_CODES = new Set([7006, 7031]);

/** UserProjectReport is what type-checking the user project found, per module. */
export interface UserProjectReport {
  /** errors are `<module>:<line> TS<code> <message>` of every error in the user's modules. */
  errors: string[];
  /**
   * freeNames are, per snippet, the names it takes from the reader's code (not an error: a
   * snippet shows a step; each such name is of type `any`-like error type, the rest is judged).
   */
  freeNames: Map<string, string[]>;
  /** casts are `<module>:<line> <text>` of every `as`, `<T>` or `!` cast and conditional spread. */
  casts: string[];
}

/**
 * checkUserProject type-checks `modules` as one user project with `compiler` (the `typescript`
 * module of the version under test) and STRICT_USER_OPTIONS. A snippet's unresolved names and
 * unresolved relative imports are its free names (and the implicitly `any` callback parameters
 * they cause); every other diagnostic is an error.
 */
export function checkUserProject(
  compiler: typeof ts,
  modules: readonly UserModule[],
): UserProjectReport {
  const { options, errors: optionErrors } = compiler.convertCompilerOptionsFromJson(
    STRICT_USER_OPTIONS,
    WORKSPACE,
  );
  if (optionErrors.length > 0) {
    throw new Error(
      optionErrors
        .map((error) => compiler.flattenDiagnosticMessageText(error.messageText, '\n'))
        .join('\n'),
    );
  }
  const virtual = new Map(modules.map((module) => [module.file, module]));
  const disk = compiler.createCompilerHost(options);
  const host: ts.CompilerHost = {
    ...disk,
    fileExists: (file) => virtual.has(file) || disk.fileExists(file),
    readFile: (file) => virtual.get(file)?.text ?? disk.readFile(file),
    getSourceFile: (file, languageVersion, ...rest) => {
      const module = virtual.get(file);
      return module
        ? compiler.createSourceFile(file, module.text, languageVersion, true)
        : disk.getSourceFile(file, languageVersion, ...rest);
    },
  };
  const program = compiler.createProgram({
    rootNames: modules.map((module) => module.file),
    options,
    host,
  });
  const report: UserProjectReport = { errors: [], freeNames: new Map(), casts: [] };
  for (const diagnostic of [
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
  ]) {
    report.errors.push(`(options) TS${diagnostic.code} ${message(compiler, diagnostic)}`);
  }
  for (const module of modules) {
    const source = program.getSourceFile(module.file);
    if (!source) throw new Error(`${module.name}: not in the program`);
    const diagnostics = [
      ...program.getSyntacticDiagnostics(source),
      ...program.getSemanticDiagnostics(source),
    ];
    const free = new Set<string>();
    const contextual: string[] = [];
    for (const diagnostic of diagnostics) {
      const start = diagnostic.start ?? 0;
      const line = source.getLineAndCharacterOfPosition(start).line + 1;
      const where = `${module.name}${module.snippet ? `+${line}` : `:${line}`}`;
      const word = source.text.slice(start, start + (diagnostic.length ?? 0));
      const isFreeName = UNRESOLVED_NAME_CODES.has(diagnostic.code);
      const isLocalModule = diagnostic.code === 2307 && /^['"]\.\.?\//.test(word);
      if (module.snippet && (isFreeName || isLocalModule)) {
        free.add(word);
        continue;
      }
      contextual.push(`${where} TS${diagnostic.code} ${message(compiler, diagnostic)}`);
    }
    for (const error of contextual) {
      const code = Number(/ TS(\d+) /.exec(error)?.[1]);
      if (!(free.size > 0 && CONTEXT_CODES.has(code))) report.errors.push(error);
    }
    if (free.size > 0) report.freeNames.set(module.name, [...free].sort());
    report.casts.push(...castsIn(compiler, source, module));
  }
  return report;
}

function message(compiler: typeof ts, diagnostic: ts.Diagnostic): string {
  return compiler.flattenDiagnosticMessageText(diagnostic.messageText, ' ');
}

/**
 * castsIn lists what a user writes when a type does not let them through: a cast (`x as T`
 * other than `as const`, `<T>x`, `x!`) or a conditional spread (`...(c ? { a } : {})`,
 * `...(c && { a })`).
 */
function castsIn(compiler: typeof ts, source: ts.SourceFile, module: UserModule): string[] {
  const found: string[] = [];
  const report = (node: ts.Node): void => {
    const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    found.push(`${module.name}${module.snippet ? '+' : ':'}${line} ${node.getText(source)}`);
  };
  const visit = (node: ts.Node): void => {
    if (compiler.isAsExpression(node)) {
      const constant =
        compiler.isTypeReferenceNode(node.type) && node.type.typeName.getText(source) === 'const';
      if (!constant) report(node);
    } else if (compiler.isTypeAssertionExpression(node) || compiler.isNonNullExpression(node)) {
      report(node);
    } else if (compiler.isSpreadAssignment(node)) {
      let expression = node.expression;
      while (compiler.isParenthesizedExpression(expression)) expression = expression.expression;
      const conditional =
        compiler.isConditionalExpression(expression) ||
        (compiler.isBinaryExpression(expression) &&
          (expression.operatorToken.kind === compiler.SyntaxKind.AmpersandAmpersandToken ||
            expression.operatorToken.kind === compiler.SyntaxKind.BarBarToken ||
            expression.operatorToken.kind === compiler.SyntaxKind.QuestionQuestionToken));
      if (conditional) report(node);
    }
    compiler.forEachChild(node, visit);
  };
  visit(source);
  return found;
}
