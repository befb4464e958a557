import type { Row } from '../sources/row.js';

/** One node of `EXPLAIN (FORMAT JSON, VERBOSE)`. */
export type PlanNode = Record<string, unknown> & { Plans?: PlanNode[] };

/** A relation read by the plan. */
export interface Scan {
  nodeType: string;
  schema: string;
  relation: string;
  alias: string;
  indexName: string | null;
  filter: string | null;
  /** Rows the scan is estimated to return in all (a parallel scan's Gather total). */
  rows: number;
  cost: number;
}

export type ColumnRole = 'equality' | 'range' | 'join';

export interface ColumnUse {
  alias: string;
  column: string;
  role: ColumnRole;
  /** The plan field it was found in: Filter, Hash Cond, Index Cond... */
  field: string;
}

const conditionFields = ['Filter', 'Index Cond', 'Recheck Cond', 'Hash Cond', 'Merge Cond', 'Join Filter', 'TID Cond'];

/** The root node of an EXPLAIN (FORMAT JSON) answer. */
export function planRoot(rows: readonly Row[]): PlanNode {
  const value = rows[0]?.['QUERY PLAN'];
  const parsed = (typeof value === 'string' ? JSON.parse(value) : value) as Array<{ Plan: PlanNode }>;
  const plan = parsed?.[0]?.Plan;
  if (plan === undefined) throw new Error('EXPLAIN gave no plan');
  return plan;
}

export function totalCost(node: PlanNode): number {
  return Number(node['Total Cost']);
}

export function walk(node: PlanNode, visit: (node: PlanNode, parent: PlanNode | null) => void, parent: PlanNode | null = null): void {
  visit(node, parent);
  for (const child of node.Plans ?? []) walk(child, visit, node);
}

export function scans(root: PlanNode): Scan[] {
  const found: Scan[] = [];
  walk(root, (node, parent) => {
    if (typeof node['Relation Name'] !== 'string') return;
    const parallelTotal =
      node['Parallel Aware'] === true && parent !== null && /^Gather/.test(String(parent['Node Type'])) && parent.Plans?.length === 1
        ? Number(parent['Plan Rows'])
        : undefined;
    found.push({
      nodeType: String(node['Node Type']),
      schema: String(node.Schema ?? 'public'),
      relation: node['Relation Name'],
      alias: String(node.Alias ?? node['Relation Name']),
      indexName: typeof node['Index Name'] === 'string' ? node['Index Name'] : null,
      filter: typeof node.Filter === 'string' ? node.Filter : null,
      rows: parallelTotal ?? Number(node['Plan Rows']),
      cost: Number(node['Total Cost']),
    });
  });
  return found;
}

/** True when some node of the plan reads through the named index. */
export function usesIndex(root: PlanNode, indexName: string): boolean {
  let used = false;
  walk(root, (node) => {
    if (node['Index Name'] === indexName) used = true;
  });
  return used;
}

/** Columns the plan compares: in filters (equality or range) and in join conditions. */
export function columnUses(root: PlanNode): ColumnUse[] {
  const uses: ColumnUse[] = [];
  walk(root, (node) => {
    for (const field of conditionFields) {
      const expression = node[field];
      if (typeof expression === 'string') uses.push(...columnsIn(expression, field));
    }
  });
  return uses;
}

const identifier = '(?:"(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$]*)';
const columnRef = new RegExp(`(?<![\\w$."])(${identifier})\\.(${identifier})(?![\\w$"(.])`, 'g');
const castsAndParens = String.raw`(?:\)|::(?:"[^"]+"|[a-z_][a-z0-9_ ]*?)(?:\(\d+(?:,\d+)?\))?(?:\[\])?)*`;
const operatorAfter = new RegExp(`^${castsAndParens}\\s*(= ANY|=|<>|!=|<=|>=|<|>|IS NULL|IS NOT NULL|~~\\*?|!~~\\*?)`);
const operatorBefore = /(=|<>|!=|<=|>=|<|>)\s*\(*$/;

const notFunctions = new Set(['AND', 'OR', 'NOT', 'ANY', 'ALL', 'IN', 'CASE', 'WHEN', 'THEN', 'ELSE']);

/** Column references `alias.column` of one plan expression, with the role of each. */
export function columnsIn(expression: string, field: string): ColumnUse[] {
  const text = expression.replace(/'(?:[^']|'')*'/g, "''");
  const refs = [...text.matchAll(columnRef)].map((match) => ({
    alias: unquote(match[1]!),
    column: unquote(match[2]!),
    start: match.index,
    end: match.index + match[0].length,
  }));
  const uses: ColumnUse[] = [];
  for (const ref of refs) {
    // An argument of a function (lower(t.email)) is not the column an index on it would serve.
    const call = /([A-Za-z_][A-Za-z0-9_]*)\s*\($/.exec(text.slice(0, ref.start));
    if (call !== null && !notFunctions.has(call[1]!.toUpperCase())) continue;
    const after = operatorAfter.exec(text.slice(ref.end));
    const before = operatorBefore.exec(text.slice(0, ref.start));
    const operator = after?.[1] ?? before?.[1];
    if (operator === undefined) continue;
    // The other operand: the next reference after the operator, or the previous one before it.
    const other = after
      ? refs.find((candidate) => candidate.start >= ref.end + after[0].length && /^\s*\(*$/.test(text.slice(ref.end + after[0].length, candidate.start)))
      : [...refs].reverse().find((candidate) => candidate.end <= ref.start && new RegExp(`^${castsAndParens}\\s*(=|<>|!=|<=|>=|<|>)\\s*\\(*$`).test(text.slice(candidate.end, ref.start)));
    let role: ColumnRole | undefined;
    if (other !== undefined && other.alias !== ref.alias && operator === '=') role = 'join';
    else if (operator === '=' || operator === '= ANY' || operator === 'IS NULL') role = 'equality';
    else if (['<', '>', '<=', '>='].includes(operator)) role = 'range';
    if (role !== undefined) uses.push({ alias: ref.alias, column: ref.column, role, field });
  }
  return uses;
}

function unquote(name: string): string {
  return name.startsWith('"') ? name.slice(1, -1).replaceAll('""', '"') : name;
}

/** A compact text rendering of the plan, like EXPLAIN's text format, cut at `maxLines`. */
export function planExcerpt(root: PlanNode, maxLines = 30): string {
  const lines: string[] = [];
  const render = (node: PlanNode, depth: number) => {
    const indent = '  '.repeat(depth);
    const relation = typeof node['Relation Name'] === 'string' ? ` on ${node.Schema ?? ''}${node.Schema ? '.' : ''}${node['Relation Name']} ${node.Alias ?? ''}`.trimEnd() : '';
    const index = typeof node['Index Name'] === 'string' ? ` using ${node['Index Name']}` : '';
    lines.push(
      `${indent}${depth > 0 ? '-> ' : ''}${node['Node Type']}${index}${relation}  (cost=${node['Startup Cost']}..${node['Total Cost']} rows=${node['Plan Rows']})`,
    );
    for (const field of conditionFields) {
      if (typeof node[field] === 'string') lines.push(`${indent}     ${field}: ${node[field]}`);
    }
    for (const child of node.Plans ?? []) render(child, depth + 1);
  };
  render(root, 0);
  return lines.length > maxLines ? [...lines.slice(0, maxLines), '...'].join('\n') : lines.join('\n');
}
