import type { DatabaseRecord } from './database-sections-source.js';

/**
 * Where and how often the database is collected. Those who may write get a form that
 * web/database-sections.ts sends to /v1 as a PUT; the password is write-only.
 */
export function ConnectionSection({ database, canWrite }: { database: DatabaseRecord; canWrite: boolean }) {
  const { connection, monitoring } = database;
  const passwordState = connection.password_set ? 'set' : 'not set';
  return (
    <section id="connection" aria-labelledby="connection-title" class="database-section">
      <h2 id="connection-title">Connection and monitoring</h2>
      <p>
        {`Monitoring is ${monitoring.enabled ? 'on' : 'paused'}, every ${monitoring.interval_seconds} s.`}{' '}
        {canWrite && (
          <button type="button" class="secondary" data-monitoring={monitoring.enabled ? 'pause' : 'resume'}>
            {monitoring.enabled ? 'Pause monitoring' : 'Resume monitoring'}
          </button>
        )}
      </p>
      {canWrite ? (
        <form id="connection-form" class="connection-form">
          <p class="alert" role="alert" hidden />
          <div class="field-grid">
            <label for="connection-host">Host</label>
            <input id="connection-host" name="host" value={connection.host} required autocomplete="off" />
            <label for="connection-port">Port</label>
            <input id="connection-port" name="port" type="number" min={1} max={65535} value={connection.port} required />
            <label for="connection-database">Database</label>
            <input id="connection-database" name="database" value={connection.database} required autocomplete="off" />
            <label for="connection-username">Username</label>
            <input id="connection-username" name="username" value={connection.username} required autocomplete="off" />
            <label for="connection-password">Password</label>
            <input id="connection-password" name="password" type="password" autocomplete="new-password" aria-describedby="password-state" />
            <label for="connection-interval">Collect every (seconds)</label>
            <input id="connection-interval" name="interval_seconds" type="number" min={10} max={3600} value={monitoring.interval_seconds} required />
          </div>
          <p id="password-state" class="hint muted">
            {`A password is ${passwordState}; it is never shown. Leave the field empty to keep it. `}
            <strong>Changing the host, port, database or username clears the stored password</strong> unless you type it again.
          </p>
          {connection.password_set && (
            <p>
              <label class="checkbox">
                <input type="checkbox" name="clear_password" /> Remove the stored password
              </label>
            </p>
          )}
          <p>
            <label class="checkbox">
              <input type="checkbox" name="ssl" checked={connection.ssl} /> Connect with TLS (ssl)
            </label>
          </p>
          <button type="submit">Save the connection</button>
        </form>
      ) : (
        <dl>
          <dt>Host</dt>
          <dd>{`${connection.host}:${connection.port}`}</dd>
          <dt>Database</dt>
          <dd>{connection.database}</dd>
          <dt>Username</dt>
          <dd>{connection.username}</dd>
          <dt>Password</dt>
          <dd>{passwordState}</dd>
          <dt>TLS</dt>
          <dd>{connection.ssl ? 'yes' : 'no'}</dd>
        </dl>
      )}
    </section>
  );
}
