/** Rows as aligned columns under a header, for a terminal; null shows as `-`. */
export function formatTable(headers: readonly string[], rows: ReadonlyArray<ReadonlyArray<string | number | null>>): string[] {
  const cells = [headers, ...rows.map((row) => row.map((cell) => (cell === null ? '-' : String(cell))))];
  const widths = headers.map((_, column) => Math.max(...cells.map((row) => row[column]!.length)));
  return cells.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  '));
}
