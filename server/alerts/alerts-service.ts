import { ConflictError, NotFoundError } from '../errors.js';
import type { EventOutbox } from '../webhooks/event-outbox.js';
import type { AlertEvaluationService } from './alert-evaluation-service.js';
import { presentAlert } from './alert-presenter.js';
import type { AlertFilter, AlertRow, AlertsRepository } from './alerts-repository.js';
import type { Transaction } from '../storage/open-database.js';


export class AlertsService {
  constructor(
    private readonly alerts: AlertsRepository,
    private readonly evaluation: AlertEvaluationService,
    private readonly events: EventOutbox,
    private readonly transaction: Transaction,
  ) {}

  list(orgId: string, filter: AlertFilter, limit: number, offset: number) {
    return this.alerts.list(orgId, filter, limit, offset);
  }

  get(orgId: string, id: string): AlertRow {
    const row = this.alerts.findById(orgId, id);
    if (row === undefined) throw new NotFoundError(`No alert ${id}`, 'id');
    return row;
  }

  /**
   * Resolves by hand. The rule then stays quiet on this database until its condition has
   * cleared once; the database status follows in the same transaction.
   */
  resolve(orgId: string, id: string, resolvedBy: string, note: string | undefined, now: Date): AlertRow {
    return this.transaction(() => {
      const current = this.get(orgId, id);
      const resolution = { resolved_at: now.toISOString(), resolved_by: resolvedBy, resolution_note: note ?? null };
      if (!this.alerts.resolve(id, resolution)) throw new ConflictError('already_resolved', `Alert ${id} is resolved already`, 'id');
      this.alerts.suppress(current.rule_id, current.database_id, now.getTime());
      const row: AlertRow = { ...current, status: 'resolved', ...resolution };
      this.events.publish(orgId, 'alert.resolved', { object: presentAlert(row) }, now);
      this.evaluation.evaluateDatabases([current.database_id], now);
      return row;
    });
  }
}
