/** The typed syntax tree of the Painless subset. Every node carries the source offset it starts at. */

export type Literal = null | boolean | string | bigint | number;

export type Expr =
  | { k: 'lit'; at: number; value: Literal }
  | { k: 'var'; at: number; name: string }
  | { k: 'member'; at: number; obj: Expr; name: string; nullSafe: boolean }
  | { k: 'index'; at: number; obj: Expr; index: Expr }
  | { k: 'call'; at: number; name: string; args: Expr[] }
  | { k: 'mcall'; at: number; obj: Expr; name: string; args: Expr[]; nullSafe: boolean }
  | { k: 'unary'; at: number; op: '!' | '-' | '+' | '~'; expr: Expr }
  | { k: 'binary'; at: number; op: BinaryOp; left: Expr; right: Expr }
  | { k: 'logical'; at: number; op: '&&' | '||'; left: Expr; right: Expr }
  | { k: 'cond'; at: number; test: Expr; then: Expr; else: Expr }
  | { k: 'elvis'; at: number; left: Expr; right: Expr }
  | { k: 'assign'; at: number; op: AssignOp; target: Expr; value: Expr }
  | { k: 'update'; at: number; op: '++' | '--'; prefix: boolean; target: Expr }
  | { k: 'cast'; at: number; type: TypeName; expr: Expr }
  | { k: 'instanceof'; at: number; expr: Expr; type: TypeName }
  | { k: 'list'; at: number; items: Expr[] }
  | { k: 'map'; at: number; entries: Array<[Expr, Expr]> }
  | { k: 'new'; at: number; type: TypeName; args: Expr[] };

export type BinaryOp =
  | '+'
  | '-'
  | '*'
  | '/'
  | '%'
  | '=='
  | '!='
  | '==='
  | '!=='
  | '<'
  | '<='
  | '>'
  | '>='
  | '&'
  | '|'
  | '^'
  | '<<'
  | '>>'
  | '>>>';

export type AssignOp = '=' | '+=' | '-=' | '*=' | '/=' | '%=' | '&=' | '|=' | '^=' | '<<=' | '>>=' | '>>>=';

/** Declared types we understand; everything else is rejected at compile time. */
export const TYPE_NAMES = [
  'def',
  'var',
  'int',
  'long',
  'short',
  'byte',
  'char',
  'double',
  'float',
  'boolean',
  'String',
  'Object',
  'Integer',
  'Long',
  'Double',
  'Float',
  'Boolean',
  'Number',
  'List',
  'ArrayList',
  'Map',
  'HashMap',
  'Collection',
] as const;
export type TypeName = (typeof TYPE_NAMES)[number];

export function isTypeName(name: string): name is TypeName {
  return (TYPE_NAMES as readonly string[]).includes(name);
}

export type Stmt =
  | { k: 'block'; at: number; body: Stmt[] }
  | { k: 'if'; at: number; test: Expr; then: Stmt; else: Stmt | null }
  | { k: 'while'; at: number; test: Expr; body: Stmt }
  | { k: 'do'; at: number; body: Stmt; test: Expr }
  | { k: 'for'; at: number; init: Stmt | null; test: Expr | null; update: Expr[]; body: Stmt }
  | { k: 'foreach'; at: number; type: TypeName; name: string; iterable: Expr; body: Stmt }
  | { k: 'return'; at: number; value: Expr | null }
  | { k: 'break'; at: number }
  | { k: 'continue'; at: number }
  | { k: 'decl'; at: number; type: TypeName; vars: Array<{ name: string; at: number; init: Expr | null }> }
  | { k: 'expr'; at: number; expr: Expr };

export interface Program {
  body: Stmt[];
}
