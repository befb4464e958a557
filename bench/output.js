// What every bench needs for its command line and its report.

/** The integer value of `--name` from node:util parseArgs' string flags; throws below `min`. */
export function integerFlag(flags, name, min = 1) {
  const value = Number(flags[name]);
  if (!Number.isInteger(value) || value < min) throw new TypeError(`--${name} must be an integer >= ${min}`);
  return value;
}

export function out(line = '') {
  process.stdout.write(`${line}\n`);
}

/** The value below which `p` (0..1) of `values` lie, by nearest rank. */
export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}
