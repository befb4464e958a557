/** The parts of the /v1 answers (see the served OpenAPI document) that the pages read. */

export type DatabaseStatus = 'pending' | 'healthy' | 'warning' | 'critical' | 'unreachable' | 'paused';

export interface Database {
  id: string;
  name: string;
  type: 'postgresql' | 'mysql' | 'mariadb';
  version: string | null;
  status: DatabaseStatus;
  monitoring: { enabled: boolean; interval_seconds: number };
  last_error: { code: string; message: string; at: string } | null;
}

export interface Alert {
  id: string;
  database_id: string;
  severity: 'info' | 'warning' | 'critical';
  metric: string;
  message: string;
  triggered_at: string;
}

export interface AlertRule {
  id: string;
  name: string;
  database_id: string | null;
  metric: string;
  operator: '>' | '>=' | '<' | '<=' | '==' | '!=';
  threshold: number | string;
  severity: 'info' | 'warning' | 'critical';
  enabled: boolean;
}

export interface RolledValue {
  avg: number | null;
  min: number | null;
  max: number | null;
}

export interface MetricsHistory {
  resolution: 'raw' | '1m' | '5m' | '1h' | '1d';
  from: string;
  to: string;
  data: { timestamp: string; metrics: Record<string, number | null | RolledValue> }[];
}

export interface MetricsSnapshot {
  timestamp: string | null;
  metrics: { latency: { source: 'histogram' | 'estimate' | null } };
}
