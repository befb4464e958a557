import type { EventType } from '../webhooks/webhooks-schema.js';
import type { OptimizationRow } from './optimizations-repository.js';

export type OptimizationEventType = Extract<EventType, `optimization.${string}`>;

/**
 * Where optimization state changes go as events (the webhook outbox). Called inside the
 * transaction that made the change, so an event is recorded exactly when its change is.
 */
export interface OptimizationEvents {
  record(type: OptimizationEventType, optimization: OptimizationRow, now: Date): void;
}

export const noOptimizationEvents: OptimizationEvents = { record: () => undefined };
