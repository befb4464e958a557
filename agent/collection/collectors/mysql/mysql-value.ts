import { textOf } from '../../../sources/row.js';

const numeric = /^-?\d+(\.\d+)?$/;
// A replica's I/O thread still connecting to its source is not running.
const switches: Readonly<Record<string, number>> = { on: 1, yes: 1, off: 0, no: 0, connecting: 0 };

/**
 * A value of SHOW GLOBAL STATUS, SHOW GLOBAL VARIABLES or the replica status as mysqld_exporter
 * reads it: a number, or a switch (ON and YES as 1, OFF, NO and Connecting as 0); null for text
 * and for NULL, which are no series.
 */
export function mysqlValue(value: unknown): number | null {
  const text = textOf(value);
  if (numeric.test(text)) return Number(text);
  return switches[text.toLowerCase()] ?? null;
}
