import { performance } from 'node:perf_hooks';
import type { Transaction } from '../storage/open-database.js';

/**
 * Runs `step` until it says nothing is left (returns false) or the next step would likely end past
 * the budget, judged by the longest step so far: a slice whose units of work are large (a sealed hour
 * is ~15 ms) then stops before its budget rather than one unit after it. At least one step runs.
 * True when steps are left.
 */
export function stepsWithin(budgetMs: number, step: () => boolean): boolean {
  const started = performance.now();
  let longest = 0;
  for (;;) {
    const stepStarted = performance.now();
    if (!step()) return false;
    const ended = performance.now();
    longest = Math.max(longest, ended - stepStarted);
    if (ended - started + longest > budgetMs) return true;
  }
}

/**
 * One slice of a pass that spans slices: `step` run in one transaction within the budget
 * (stepsWithin). `forget` drops the pass when it ends or a step fails, so the next slice starts a
 * new one. True when the pass goes on.
 */
export function passSlice(transaction: Transaction, budgetMs: number, step: () => boolean, forget: () => void): boolean {
  try {
    const left = transaction(() => stepsWithin(budgetMs, step));
    if (!left) forget();
    return left;
  } catch (error) {
    forget();
    throw error;
  }
}
