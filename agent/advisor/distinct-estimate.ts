/**
 * Distinct values in a table estimated from a sample, with the Duj1 estimator of Haas and Stokes
 * (the one PostgreSQL's ANALYZE uses): n*d / (n - f1 + f1*n/N), where the sample of n rows holds
 * d distinct values, f1 of them seen once, out of N rows in all.
 */
export function estimateDistinct(sample: { rows: number; distinct: number; singletons: number }, tableRows: number): number {
  const { rows: n, distinct: d, singletons: f1 } = sample;
  if (n === 0 || d === 0) return 1;
  if (n >= tableRows) return d;
  const denominator = n - f1 + (f1 * n) / tableRows;
  const estimate = denominator <= 0 ? tableRows : (n * d) / denominator;
  return Math.min(tableRows, Math.max(d, estimate));
}
