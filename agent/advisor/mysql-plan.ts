import type { Row } from '../sources/row.js';

/** One table access of `EXPLAIN FORMAT=JSON`, MySQL's or MariaDB's. */
export interface TableAccess {
  /** The alias the statement gives the table (MySQL and MariaDB print the alias). */
  alias: string;
  accessType: string;
  key: string | null;
  rows: number;
  filtered: number;
  /** The condition checked on this table's rows (its own, or its join buffer's). */
  condition: string | null;
  /** Estimated times this access runs: the rows produced by the tables before it in the nested loop. */
  loops: number;
  /** Columns of other tables this access looks up by (`db.alias.column`), from EXPLAIN's `ref`. */
  refs: string[];
}

/** The table accesses of an EXPLAIN FORMAT=JSON answer, in join order. */
export function tableAccesses(rows: readonly Row[]): TableAccess[] {
  const first = rows[0];
  const raw = first === undefined ? undefined : Object.values(first)[0];
  if (typeof raw !== 'string') throw new Error('EXPLAIN FORMAT=JSON gave no plan');
  const accesses: TableAccess[] = [];
  let produced = 1;
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    const node = value as Record<string, unknown>;
    // MariaDB puts a join buffer's condition beside the table it filters: {"block-nl-join": {"table": ..., "attached_condition": ...}}.
    const blockCondition = typeof node.attached_condition === 'string' ? node.attached_condition : null;
    for (const [key, child] of Object.entries(node)) {
      if (key === 'table' && typeof child === 'object' && child !== null && !Array.isArray(child) && 'table_name' in child) {
        const table = child as Record<string, unknown>;
        const rowsEstimate = Number(table.rows ?? table.rows_examined_per_scan ?? 0);
        const filtered = Number(table.filtered ?? 100);
        accesses.push({
          alias: String(table.table_name ?? ''),
          accessType: String(table.access_type ?? ''),
          key: typeof table.key === 'string' ? table.key : null,
          rows: rowsEstimate,
          filtered,
          condition: typeof table.attached_condition === 'string' ? table.attached_condition : blockCondition,
          loops: produced,
          refs: Array.isArray(table.ref) ? table.ref.filter((ref): ref is string => typeof ref === 'string' && ref.includes('.')) : [],
        });
        produced *= Math.max(1, (rowsEstimate * filtered) / 100);
        visit(table);
      } else if (key !== 'attached_condition') {
        visit(child);
      }
    }
  };
  visit(JSON.parse(raw));
  return accesses;
}

/** The notes EXPLAIN gives instead of table accesses ("Impossible WHERE noticed after reading const tables", "No tables used"). */
export function planMessages(rows: readonly Row[]): string[] {
  const messages: string[] = [];
  JSON.parse(String(Object.values(rows[0] ?? {})[0] ?? '{}'), (key, value: unknown) => {
    if (key === 'message' && typeof value === 'string') messages.push(value);
    return value;
  });
  return messages;
}

/** Rows examined over the whole statement: each access's rows times the times it runs. */
export function rowsExamined(accesses: readonly TableAccess[]): number {
  return accesses.reduce((sum, access) => sum + access.rows * access.loops, 0);
}

export function planText(rows: readonly Row[]): string {
  const raw = rows[0] === undefined ? '' : Object.values(rows[0])[0];
  return String(raw).slice(0, 4000);
}
