import { eventTypes } from '../../webhooks/webhooks-schema.js';
import { ScrollTable } from './scroll-table.js';

/**
 * The webhooks screen's frame: the endpoints and one endpoint's delivery log, filled from /v1 by
 * web/webhooks-page.ts; the form that adds an endpoint is there only for those who may edit.
 */
export function WebhooksPage({ canEdit }: { canEdit: boolean }) {
  return (
    <div id="webhooks-page" data-can-edit={canEdit ? 'true' : 'false'}>
      <h1>Webhooks</h1>
      <p id="refresh-problem" class="alert" role="alert" hidden />
      <section>
        <h2 id="endpoints-title">Endpoints</h2>
        <p id="webhook-action-problem" class="alert" role="alert" hidden />
        <ScrollTable titleId="endpoints-title" bodyId="webhook-rows" columns={['Endpoint', 'Events', 'State', 'Created', 'Actions']} />
        <p id="no-webhooks" class="muted" hidden>
          No endpoint yet.
        </p>
      </section>
      <section id="new-secret" class="card" hidden aria-labelledby="new-secret-title">
        <h2 id="new-secret-title">Signing secret</h2>
        <p class="notice">Copy it now: it is shown this once only. Receivers check each delivery's webhook-signature with it.</p>
        <p>
          <code id="new-secret-value" class="secret" />
        </p>
        <div class="actions">
          <button type="button" id="copy-secret">
            Copy the secret
          </button>
          <button type="button" class="secondary" id="hide-secret">
            Done
          </button>
        </div>
        <p id="copy-status" class="muted" aria-live="polite" />
      </section>
      <section id="deliveries" hidden>
        <h2 id="deliveries-title">Deliveries</h2>
        <p id="deliveries-status" class="muted hint" aria-live="polite" />
        <ScrollTable titleId="deliveries-title" bodyId="delivery-rows" columns={['Event', 'Status', 'Attempts (time, response)', 'Next attempt']} />
      </section>
      {canEdit ? <WebhookForm /> : <p class="muted">Your role may read the endpoints; a member or an admin changes them.</p>}
      <noscript>
        <p class="alert">The endpoints are drawn by this page's script: allow JavaScript for this site to see them.</p>
      </noscript>
    </div>
  );
}

function WebhookForm() {
  return (
    <form id="webhook-form" class="card" aria-labelledby="webhook-form-title">
      <h2 id="webhook-form-title">New endpoint</h2>
      <div class="field">
        <label for="webhook-url">URL</label>
        <input id="webhook-url" type="url" required maxLength={2048} placeholder="https://example.com/dbmon-events" />
      </div>
      <div class="field">
        <label for="webhook-description">Description (optional)</label>
        <input id="webhook-description" maxLength={500} />
      </div>
      <fieldset class="event-types">
        <legend>Events</legend>
        <div class="field checkbox">
          <input id="event-all" type="checkbox" name="event_types" value="*" checked />
          <label for="event-all">Every event, also those added later</label>
        </div>
        {eventTypes.map((type) => (
          <div class="field checkbox">
            <input id={`event-${type.replace('.', '-')}`} type="checkbox" name="event_types" value={type} />
            <label for={`event-${type.replace('.', '-')}`}>{type}</label>
          </div>
        ))}
      </fieldset>
      <p id="webhook-problem" class="alert" role="alert" hidden />
      <div class="actions">
        <button type="submit">Add endpoint</button>
      </div>
    </form>
  );
}
