import type { SqlSession } from '../sources/sql-session.js';
import { quotePg } from './identifiers.js';
import type { Token } from './statement-guard.js';

/**
 * Inside the transaction that plans a statement: pins how the session reads names and strings,
 * then refuses the statement when planning it could run a function outside pg_catalog. Returns
 * the reason for a refusal, or undefined.
 *
 * The check runs before planning, never after: the planner itself calls functions, folding
 * IMMUTABLE calls on constants and estimating with STABLE ones, so a function that lies about
 * its volatility has run by the time a plan shows it. The names come from the statement's
 * tokens (calls, operators, casts) and, through pg_depend, from what the relations it names
 * bring into the plan: views' rules, row-level policies, rules, index expressions and
 * predicates, constraints and column defaults. The check is deliberately broad: a name that
 * merely could resolve to a function outside pg_catalog is enough.
 */
export async function guardPlanning(session: SqlSession, tokens: readonly Token[]): Promise<string | undefined> {
  // pg_catalog first, so no other schema's object of the same name and signature wins; the
  // session's own schemas after it, so the statement's tables resolve as before; pg_temp last.
  // With standard_conforming_strings on, the server reads '...\' as the guard does.
  await session.query(
    `SELECT set_config('search_path', concat_ws(', ', 'pg_catalog',
              (SELECT string_agg(quote_ident(s), ', ' ORDER BY o) FROM unnest(current_schemas(false)) WITH ORDINALITY AS u(s, o)
                WHERE s <> 'pg_catalog' AND s NOT LIKE 'pg\\_temp%'), 'pg_temp'), true),
            set_config('standard_conforming_strings', 'on', true)`,
  );
  const names = referencedNames(tokens);
  if (names.qualified.length > 0) return outside(names.qualified);
  const [row] = await session.query(foreignFunctionsQuery, [names.calls, names.relations, names.operators]);
  const functions = (row?.functions ?? []) as string[];
  return functions.length > 0 ? outside(functions) : undefined;
}

function outside(functions: readonly string[]): string {
  return `the statement would run functions outside pg_catalog while planned (${functions.join(', ')})`;
}

/** Operators PostgreSQL's grammar uses without their name in the text: IN, BETWEEN, LIKE, IS DISTINCT FROM, CASE... */
const implicitOperators = ['=', '<>', '<', '>', '<=', '>=', '~~', '~~*', '!~~', '!~~*', '~', '!~'];
const operatorChar = /^[+\-*/<>=~!@#%^&|`?]$/;

interface ReferencedNames {
  /** Names called as functions (`f(`) or in attribute notation (`t.f`), folded as the server folds them. */
  calls: string[];
  /** Each name and qualified pair, quoted, to resolve as relations and types. */
  relations: string[];
  /** Every operator name the text may hold: each substring of each run of operator characters. */
  operators: string[];
  /** Qualified calls and OPERATOR(schema.op) outside pg_catalog, refused without a lookup. */
  qualified: string[];
}

function referencedNames(tokens: readonly Token[]): ReferencedNames {
  const calls = new Set<string>();
  const relations = new Set<string>();
  const operators = new Set(implicitOperators);
  const qualified = new Set<string>();
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (operatorChar.test(token.text)) {
      let run = token.text;
      while (operatorChar.test(tokens[i + 1]?.text ?? '') && tokens[i + 1]!.start === tokens[i]!.end) run += tokens[++i]!.text;
      for (let from = 0; from < run.length; from++) for (let to = from + 1; to <= run.length; to++) operators.add(run.slice(from, to));
      continue;
    }
    if (!isName(token)) continue;
    const name = folded(token);
    relations.add(quotePg(name));
    const schemaToken = tokens[i - 1]?.text === '.' ? tokens[i - 2] : undefined;
    const schema = schemaToken !== undefined && isName(schemaToken) ? folded(schemaToken) : undefined;
    if (schema !== undefined) relations.add(`${quotePg(schema)}.${quotePg(name)}`);
    if (tokens[i + 1]?.text === '(') {
      if (schema === undefined) calls.add(name);
      else if (schema !== 'pg_catalog') qualified.add(`${schema}.${name}`);
      if (name === 'operator' && schema === undefined) {
        const operator = qualifiedOperator(tokens, i + 2);
        if (operator !== undefined && operator.schema !== 'pg_catalog') qualified.add(`OPERATOR(${operator.schema}.${operator.name})`);
      }
    } else if (schemaToken !== undefined) {
      calls.add(name);
    }
  }
  return { calls: [...calls], relations: [...relations], operators: [...operators], qualified: [...qualified] };
}

/** `schema.op` of OPERATOR(schema.op) at `from`; an unqualified one resolves through the pinned path like any operator. */
function qualifiedOperator(tokens: readonly Token[], from: number): { schema: string; name: string } | undefined {
  const schema = tokens[from];
  if (schema === undefined || !isName(schema) || tokens[from + 1]?.text !== '.') return undefined;
  let name = '';
  for (let i = from + 2; tokens[i] !== undefined && tokens[i]!.text !== ')'; i++) name += tokens[i]!.text;
  return { schema: folded(schema), name };
}

function isName(token: Token): boolean {
  return token.type === 'word' || token.type === 'quoted_identifier';
}

/** The name as the catalog spells it: unquoted names fold to lower case (ASCII letters only, as PostgreSQL does). */
function folded(token: Token): string {
  return token.type === 'quoted_identifier' ? token.text.slice(1, -1).replaceAll('""', '"') : token.text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}

const foreignFunctionsQuery = `
  WITH RECURSIVE
  path AS (
    SELECT oid FROM pg_namespace WHERE nspname = ANY (current_schemas(false)) AND nspname <> 'pg_catalog'
  ),
  reached (classid, objid) AS (
    SELECT 'pg_class'::regclass::oid, to_regclass(n)::oid FROM unnest($2::text[]) AS n WHERE to_regclass(n) IS NOT NULL
    UNION
    SELECT next.classid, next.objid
      FROM reached r
      CROSS JOIN LATERAL (
        -- What the planner reads along with a relation: its view rule and rules, policies, indexes, constraints, defaults.
        SELECT d.classid, d.objid FROM pg_depend d
         WHERE r.classid = 'pg_class'::regclass AND d.refclassid = 'pg_class'::regclass AND d.refobjid = r.objid
           AND d.deptype IN ('a', 'i')
           AND d.classid IN ('pg_rewrite'::regclass, 'pg_policy'::regclass, 'pg_class'::regclass, 'pg_constraint'::regclass, 'pg_attrdef'::regclass)
        UNION ALL
        -- What those use: relations (of a view, a policy), functions, operators.
        SELECT d.refclassid, d.refobjid FROM pg_depend d
         WHERE d.classid = r.classid AND d.objid = r.objid
           AND d.refclassid IN ('pg_class'::regclass, 'pg_proc'::regclass, 'pg_operator'::regclass)
      ) AS next
  ),
  candidates (oid) AS (
    SELECT objid FROM reached WHERE classid = 'pg_proc'::regclass
    UNION SELECT o.oprcode FROM reached r JOIN pg_operator o ON o.oid = r.objid WHERE r.classid = 'pg_operator'::regclass
    UNION SELECT p.oid FROM pg_proc p WHERE p.proname = ANY ($1::text[]) AND p.pronamespace IN (SELECT oid FROM path)
    UNION SELECT o.oprcode FROM pg_operator o WHERE o.oprname = ANY ($3::text[]) AND o.oprnamespace IN (SELECT oid FROM path)
    UNION SELECT c.castfunc FROM pg_cast c JOIN unnest($2::text[]) AS n ON to_regtype(n) IN (c.castsource, c.casttarget)
  )
  SELECT coalesce(array_agg(DISTINCT n.nspname || '.' || p.proname ORDER BY n.nspname || '.' || p.proname), '{}') AS functions
    FROM candidates c
    JOIN pg_proc p ON p.oid = c.oid
    JOIN pg_namespace n ON n.oid = p.pronamespace
   WHERE n.nspname <> 'pg_catalog'`;
