import type { Alert, AlertRule } from './api-types.js';

/** The parts of /v1 alerts and rules the alerts screen reads beyond what the overview needs. */
export interface AlertRecord extends Alert {
  status: 'active' | 'resolved';
  operator: AlertRule['operator'];
  value: number | string | null;
  threshold: number | string;
  resolved_at: string | null;
  resolved_by: string | null;
  resolution_note: string | null;
}

export interface RuleRecord extends AlertRule {
  duration_seconds: number;
}

/** What the rules editor sends: the API's AlertRuleCreate. */
export type RuleInput = Omit<RuleRecord, 'id'>;

/** How a threshold is read: a number in one of the catalog's units, 1 or 0 for reachability, a status value. */
export type RuleUnit = 'percent' | 'count' | 'bytes' | 'per_second' | 'milliseconds' | 'flag' | 'status';

const unitSuffix: Record<RuleUnit, string> = { percent: ' %', count: '', bytes: ' bytes', per_second: '/s', milliseconds: ' ms', flag: '', status: '' };
const byteUnits = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];

/** 1073741824 → "1 GiB"; whole numbers stay whole, others keep two decimals. */
function bytesText(value: number): string {
  let scaled = value;
  let index = 0;
  while (Math.abs(scaled) >= 1024 && index < byteUnits.length - 1) {
    scaled /= 1024;
    index++;
  }
  return `${Number.isInteger(scaled) ? scaled : scaled.toFixed(2)} ${byteUnits[index]}`;
}

/** A threshold or a measured value with its unit: "90 %", "250 ms", "0 (unreachable)". */
export function valueWithUnit(value: number | string, unit: RuleUnit | undefined): string {
  if (typeof value === 'string') return value;
  if (unit === 'flag') return value === 0 ? '0 (unreachable)' : `${value} (reachable)`;
  if (unit === 'bytes') return bytesText(value);
  const shown = Number.isInteger(value) ? String(value) : value.toFixed(2);
  return `${shown}${unit === undefined ? '' : unitSuffix[unit]}`;
}

/** Short words for what the threshold field's unit is. */
export const unitLabel: Record<RuleUnit, string> = {
  percent: '%',
  count: 'count',
  bytes: 'bytes',
  per_second: 'per second',
  milliseconds: 'ms',
  flag: '1 reachable, 0 not',
  status: '',
};

export function durationText(seconds: number): string {
  if (seconds === 0) return 'first sample';
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}
