import { createHash } from 'node:crypto';

/** A PostgreSQL identifier, always quoted: the name is taken exactly as the catalog spells it. */
export function quotePg(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** A MySQL/MariaDB identifier, always quoted with backticks. */
export function quoteMysql(name: string): string {
  return `\`${name.replaceAll('`', '``')}\``;
}

/**
 * `<table>_<col>[_<col>]_idx`, as PostgreSQL names indexes itself; cut to the engine's limit
 * (63 bytes on PostgreSQL, 64 characters on MySQL) with a short hash so cut names stay distinct.
 */
export function indexNameFor(table: string, columns: readonly string[], maxBytes: number): string {
  const full = `${table}_${columns.join('_')}_idx`.replace(/[^A-Za-z0-9_]/g, '_').toLowerCase();
  if (Buffer.byteLength(full) <= maxBytes) return full;
  const hash = createHash('sha256').update(`${table}\0${columns.join('\0')}`).digest('hex').slice(0, 8);
  return `${full.slice(0, maxBytes - 13)}_${hash}_idx`;
}
