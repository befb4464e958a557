import type { Db } from '../../storage/open-database.js';
import type { Organization, OrganizationSettingsRow } from './organization.js';

const settingsColumns = [
  'session_idle_timeout_minutes',
  'session_max_duration_hours',
  'max_concurrent_sessions',
  'require_two_factor',
  'two_factor_grace_period_days',
  'two_factor_required_since',
  'ip_allowlist',
  'auto_apply_optimizations',
] as const;

export class OrganizationsRepository {
  readonly #insert;
  readonly #byId;
  readonly #bySlug;
  readonly #count;
  readonly #all;
  readonly #settings;
  readonly #updateSettings;
  readonly #rename;

  constructor(db: Db) {
    this.#insert = db.prepare<Organization>(
      `INSERT INTO organizations (id, name, slug, plan, custom_hourly_limit, created_at)
       VALUES (@id, @name, @slug, @plan, @custom_hourly_limit, @created_at)`,
    );
    this.#byId = db.prepare<[string], Organization>('SELECT * FROM organizations WHERE id = ?');
    this.#bySlug = db.prepare<[string], Organization>('SELECT * FROM organizations WHERE slug = ?');
    this.#count = db.prepare<[], number>('SELECT count(*) FROM organizations').pluck();
    this.#all = db.prepare<[], Organization>('SELECT * FROM organizations ORDER BY created_at, id');
    this.#settings = db.prepare<[string], OrganizationSettingsRow>(`SELECT ${settingsColumns.join(', ')} FROM organizations WHERE id = ?`);
    this.#updateSettings = db.prepare<OrganizationSettingsRow & { id: string }>(
      `UPDATE organizations SET ${settingsColumns.map((column) => `${column} = @${column}`).join(', ')} WHERE id = @id`,
    );
    this.#rename = db.prepare<[string, string, string]>('UPDATE organizations SET name = ?, slug = ? WHERE id = ?');
  }

  settings(id: string): OrganizationSettingsRow | undefined {
    return this.#settings.get(id);
  }

  updateSettings(id: string, settings: OrganizationSettingsRow): void {
    this.#updateSettings.run({ ...settings, id });
  }

  /** Throws SQLITE_CONSTRAINT_UNIQUE when another organization has the name or the slug. */
  rename(id: string, name: string, slug: string): void {
    this.#rename.run(name, slug, id);
  }

  insert(organization: Organization): void {
    this.#insert.run(organization);
  }

  findById(id: string): Organization | undefined {
    return this.#byId.get(id);
  }

  findBySlug(slug: string): Organization | undefined {
    return this.#bySlug.get(slug);
  }

  all(): Organization[] {
    return this.#all.all();
  }

  count(): number {
    return this.#count.get()!;
  }
}
