import type { AuditRow } from './audit-repository.js';

export function presentAuditEntry(row: AuditRow) {
  return {
    id: row.id,
    action: row.action,
    actor: row.actor_type === null ? null : { type: row.actor_type, id: row.actor_id },
    credential: row.credential_type === null ? null : { type: row.credential_type, id: row.credential_id },
    target: row.target_type === null ? null : { type: row.target_type, id: row.target_id },
    ip: row.ip,
    user_agent: row.user_agent,
    details: JSON.parse(row.details) as Record<string, unknown>,
    created_at: row.created_at,
  };
}
