/**
 * Latency percentiles estimated from per-statement means and deviations: each statement's
 * durations are taken as lognormal with its mean and deviation, weighted by its calls, and the
 * mixture's CDF is solved for the percentile by bisection. A statement without a deviation is a
 * point mass at its mean.
 */

export interface MixtureComponent {
  weight: number;
  meanMs: number;
  stddevMs: number;
}

const BISECTION_STEPS = 100;
/** Beyond this many deviations a lognormal holds no mass worth a percentile. */
const TAIL_SIGMAS = 8;

interface Lognormal {
  weight: number;
  meanMs: number;
  mu: number;
  sigma: number;
}

/**
 * The smallest duration below which a fraction `p` of the calls fall, or null without calls.
 * Bisection follows the same path for every p until the paths part, so a higher p never
 * yields a lower value.
 */
export function mixtureQuantile(components: readonly MixtureComponent[], p: number): number | null {
  const parts = components.filter((c) => c.weight > 0).map(toLognormal);
  const totalWeight = parts.reduce((sum, part) => sum + part.weight, 0);
  if (totalWeight === 0) return null;
  let low = 0;
  let high = Math.max(...parts.map(upperBound));
  for (let step = 0; step < BISECTION_STEPS; step++) {
    const middle = (low + high) / 2;
    if (mixtureCdf(parts, middle) / totalWeight >= p) high = middle;
    else low = middle;
  }
  return high;
}

function toLognormal(component: MixtureComponent): Lognormal {
  const { weight, meanMs, stddevMs } = component;
  if (meanMs <= 0 || stddevMs <= 0) return { weight, meanMs, mu: 0, sigma: 0 };
  const sigmaSquared = Math.log(1 + (stddevMs / meanMs) ** 2);
  return { weight, meanMs, mu: Math.log(meanMs) - sigmaSquared / 2, sigma: Math.sqrt(sigmaSquared) };
}

function upperBound(part: Lognormal): number {
  return part.sigma === 0 ? part.meanMs : Math.exp(part.mu + TAIL_SIGMAS * part.sigma);
}

function mixtureCdf(parts: readonly Lognormal[], x: number): number {
  const logX = Math.log(x);
  let below = 0;
  for (const part of parts) below += part.weight * lognormalCdf(part, x, logX);
  return below;
}

function lognormalCdf(part: Lognormal, x: number, logX: number): number {
  if (part.sigma === 0) return x >= part.meanMs ? 1 : 0;
  if (x <= 0) return 0;
  return normalCdf((logX - part.mu) / part.sigma);
}

export function normalCdf(z: number): number {
  return 0.5 * complementaryErf(-z / Math.SQRT2);
}

/** Chebyshev approximation of erfc (Numerical Recipes), fractional error below 1.2e-7. */
function complementaryErf(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const poly =
    -1.26551223 +
    t * (1.00002368 +
    t * (0.37409196 +
    t * (0.09678418 +
    t * (-0.18628806 +
    t * (0.27886807 +
    t * (-1.13520398 +
    t * (1.48851587 +
    t * (-0.82215223 +
    t * 0.17087277))))))));
  const result = t * Math.exp(-z * z + poly);
  return x >= 0 ? result : 2 - result;
}
