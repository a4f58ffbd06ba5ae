import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { repoRoot } from '../src/stack';

/**
 * No import cycle in the source trees (issue 19). A cycle means two modules cannot be read, tested or
 * moved apart, and a value cycle can hand one of them a binding before its module has run. Type-only
 * imports (`import type`) are erased at run time but count here too: they tie the files together all
 * the same.
 */
const TREES = ['services/search-store/src', 'services/auth-server/src', 'packages/common/src'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The file a relative specifier names: `./x` → x.ts or x/index.ts (`.js` suffixes map to `.ts`). */
function resolveRelative(from: string, specifier: string): string | undefined {
  const base = resolve(dirname(from), specifier.replace(/\.js$/, ''));
  return [`${base}.ts`, join(base, 'index.ts')].find((candidate) => existsSync(candidate));
}

/**
 * The relative imports of every file: `import`, `import type`, `export … from`, `import()`. The
 * compiler's own pre-processor reads them, so strings and comments that look like imports do not count.
 */
function importGraph(files: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, false);
    const targets = importedFiles
      .map((imported) => imported.fileName)
      .filter((name) => name.startsWith('./') || name.startsWith('../'))
      .map((name) => resolveRelative(file, name))
      .filter((target): target is string => target !== undefined);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** Tarjan's strongly connected components with more than one file (or a file importing itself). */
function cycles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, counter);
    low.set(file, counter);
    counter += 1;
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file)!, index.get(next)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (graph.get(file) ?? []).includes(file)) found.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

describe('import cycles', () => {
  it('finds a cycle, type-only imports included, and ignores imports in comments and strings', () => {
    const root = mkdtempSync(join(tmpdir(), 'import-cycles-'));
    try {
      mkdirSync(join(root, 'b'));
      const files: Record<string, string> = {
        'a.ts': "import type { B } from './b';\nexport type A = B[];\n",
        'b/index.ts': "export * from '../c';\nexport { a } from '../a.js';\nexport type B = string;\n",
        'c.ts': "// import { a } from './a';\nexport const c = \"import { d } from './d'\";\n",
        'd.ts': "import { c } from './c';\nimport { x } from 'express';\nexport const d = [c, x];\n",
        'e.ts': "export const e = () => import('./e');\n",
      };
      for (const [name, text] of Object.entries(files)) writeFileSync(join(root, name), text);
      const found = cycles(importGraph(sourceFiles(root))).map((c) => c.map((f) => relative(root, f)));
      expect(found.sort()).toEqual([['a.ts', 'b/index.ts'], ['e.ts']]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it.each(TREES)('%s has none', (tree) => {
    const graph = importGraph(sourceFiles(join(repoRoot, tree)));
    // Each cycle as its files and the imports among them, to show which import to cut.
    const listed = cycles(graph).map((component) =>
      component.map((file) => {
        const within = (graph.get(file) ?? []).filter((target) => component.includes(target));
        return `${relative(repoRoot, file)} → ${within.map((target) => relative(repoRoot, target)).join(', ')}`;
      }),
    );
    expect(listed).toEqual([]);
  });
});
