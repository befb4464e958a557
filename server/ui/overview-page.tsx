import { databaseTypes } from '../../common/agent-protocol/database-types.js';
import { databaseStatuses } from '../databases/databases-schema.js';
import { ScrollRegion } from './scroll-region.js';

/**
 * The overview's frame: the organization's active alerts, then its databases with filters. The
 * browser code (web/overview.ts) fills both from /v1 and keeps them current.
 */
export function OverviewPage() {
  return (
    <>
      <h1>Overview</h1>
      <p id="refresh-problem" class="alert" role="alert" hidden />
      <section aria-labelledby="alerts-title">
        <h2 id="alerts-title">Active alerts</h2>
        <div id="active-alerts">
          <p class="muted">Loading…</p>
        </div>
      </section>
      <section>
        <div class="section-head">
          <h2 id="databases-title">Databases</h2>
          <div class="filters">
            <span class="filter">
              <label for="status-filter">Status</label>
              <select id="status-filter">
                <option value="">All</option>
                {databaseStatuses.map((status) => (
                  <option value={status}>{status === 'pending' ? 'no data yet' : status}</option>
                ))}
              </select>
            </span>
            <span class="filter">
              <label for="engine-filter">Engine</label>
              <select id="engine-filter">
                <option value="">All</option>
                {databaseTypes.map((type) => (
                  <option value={type}>{type}</option>
                ))}
              </select>
            </span>
          </div>
        </div>
        <p id="refresh-status" class="muted hint">
          Loading…
        </p>
        <ScrollRegion labelledBy="databases-title">
          <table class="databases">
            <thead>
              <tr>
                <th scope="col">Database</th>
                <th scope="col">Status</th>
                <th scope="col">Engine</th>
                <th scope="col">Connections (1 h)</th>
                <th scope="col">Transactions (1 h)</th>
                <th scope="col">p95 latency</th>
                <th scope="col">Active alerts</th>
                <th scope="col">Last measured</th>
              </tr>
            </thead>
            <tbody id="database-rows" />
          </table>
        </ScrollRegion>
        <p id="no-databases" class="muted" hidden>
          No database is monitored yet: register one with POST /v1/databases.
        </p>
        <p id="no-match" class="muted" hidden>
          No database matches these filters.
        </p>
      </section>
      <noscript>
        <p class="alert">The overview is drawn by its script: allow JavaScript for this site to see it.</p>
      </noscript>
    </>
  );
}
