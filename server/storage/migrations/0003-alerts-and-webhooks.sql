-- Alert rules: database_id NULL means every database of the organization.
CREATE TABLE alert_rules (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  database_id TEXT REFERENCES databases (id) ON DELETE CASCADE,
  metric TEXT NOT NULL,
  operator TEXT NOT NULL CHECK (operator IN ('>', '>=', '<', '<=', '==', '!=')),
  threshold REAL NOT NULL,
  duration_seconds INTEGER NOT NULL CHECK (duration_seconds >= 0),
  severity TEXT NOT NULL CHECK (severity IN ('info', 'warning', 'critical')),
  enabled INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX alert_rules_org ON alert_rules (org_id, created_at, id);
CREATE INDEX alert_rules_database ON alert_rules (database_id);

-- rule_id has no foreign key: an alert keeps naming the rule that raised it after the rule is deleted.
CREATE TABLE alerts (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  rule_id TEXT NOT NULL,
  database_id TEXT NOT NULL REFERENCES databases (id) ON DELETE CASCADE,
  severity TEXT NOT NULL CHECK (severity IN ('info', 'warning', 'critical')),
  status TEXT NOT NULL CHECK (status IN ('active', 'resolved')),
  metric TEXT NOT NULL,
  operator TEXT NOT NULL,
  value REAL,
  threshold REAL NOT NULL,
  message TEXT NOT NULL,
  triggered_at TEXT NOT NULL,
  resolved_at TEXT,
  resolved_by TEXT,
  resolution_note TEXT
);
-- At most one active alert per rule and database, whatever the evaluator does.
CREATE UNIQUE INDEX alerts_one_active ON alerts (rule_id, database_id) WHERE status = 'active';
CREATE INDEX alerts_org_triggered ON alerts (org_id, triggered_at, id);
CREATE INDEX alerts_database ON alerts (database_id, status);

-- A rule and database whose alert a user resolved by hand: no new alert until the condition has cleared once.
CREATE TABLE alert_suppressions (
  rule_id TEXT NOT NULL,
  database_id TEXT NOT NULL REFERENCES databases (id) ON DELETE CASCADE,
  since INTEGER NOT NULL,
  PRIMARY KEY (rule_id, database_id)
) WITHOUT ROWID;

-- When monitoring of a database was last switched back on: samples from before do not count.
CREATE TABLE monitoring_resumes (
  database_id TEXT PRIMARY KEY REFERENCES databases (id) ON DELETE CASCADE,
  resumed_at INTEGER NOT NULL
);

-- Stock rules for the organizations that exist already (new ones get them from the server when created).
-- A frozen copy of server/alerts/stock-alert-rules.ts as of this migration; ids are 22 random hex digits.
INSERT INTO alert_rules (id, org_id, name, database_id, metric, operator, threshold, duration_seconds, severity, enabled, created_at, updated_at)
SELECT 'rule_' || substr(lower(hex(randomblob(16))), 1, 22), organizations.id, stock.name, NULL, stock.metric, stock.operator,
       stock.threshold, stock.duration_seconds, stock.severity, 1,
       strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
FROM organizations
CROSS JOIN (
  SELECT 1 AS position, 'Connections above 90% of max' AS name, 'connections.used_pct' AS metric, '>' AS operator,
         90.0 AS threshold, 300 AS duration_seconds, 'warning' AS severity
  UNION ALL SELECT 2, 'Disk above 90%', 'disk_usage', '>', 90.0, 300, 'warning'
  UNION ALL SELECT 3, 'Database unreachable for 2 minutes', 'reachable', '==', 0.0, 120, 'critical'
) AS stock
ORDER BY organizations.id, stock.position;

-- Events: the exact JSON body every webhook of the organization receives for it.
CREATE TABLE events (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  type TEXT NOT NULL,
  payload TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX events_created ON events (created_at);

CREATE TABLE webhooks (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  url TEXT NOT NULL,
  description TEXT NOT NULL,
  event_types TEXT NOT NULL,
  secret_encrypted BLOB NOT NULL,
  enabled INTEGER NOT NULL,
  disabled_reason TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX webhooks_org ON webhooks (org_id, created_at, id);

-- The outbox: one row per event and subscribed webhook, written in the transaction that made the event.
CREATE TABLE webhook_deliveries (
  webhook_id TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  event_id TEXT NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  status TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER,
  last_attempt_at INTEGER,
  response_code INTEGER,
  error TEXT,
  created_at INTEGER NOT NULL,
  completed_at INTEGER,
  PRIMARY KEY (webhook_id, event_id)
) WITHOUT ROWID;
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_listing ON webhook_deliveries (webhook_id, created_at);

CREATE TABLE webhook_delivery_attempts (
  webhook_id TEXT NOT NULL,
  event_id TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  attempted_at INTEGER NOT NULL,
  duration_ms INTEGER NOT NULL,
  response_code INTEGER,
  error TEXT,
  next_attempt_at INTEGER,
  PRIMARY KEY (webhook_id, event_id, attempt),
  FOREIGN KEY (webhook_id, event_id) REFERENCES webhook_deliveries (webhook_id, event_id) ON DELETE CASCADE
) WITHOUT ROWID;
