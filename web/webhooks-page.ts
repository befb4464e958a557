import { callApi, getAll, getJson } from './api.js';
import { element, formatAge, timeElement } from './format.js';
import { startRefreshLoop } from './refresh-loop.js';
import { rowButton, showProblem } from './row-controls.js';

/** The webhooks screen at `/webhooks`: endpoints, adding one (its secret shown once), tests, and one endpoint's delivery log, through /v1. */

interface Webhook {
  id: string;
  url: string;
  description: string;
  event_types: string[];
  enabled: boolean;
  disabled_reason: 'gone' | null;
  created_at: string;
}

interface Delivery {
  event_id: string;
  event_type: string;
  status: 'pending' | 'succeeded' | 'failed';
  next_attempt_at: string | null;
  created_at: string;
  attempt_history: { attempt: number; attempted_at: string; duration_ms: number; response_code: number | null; error: string | null }[];
}

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const canEdit = byId('webhooks-page').dataset.canEdit === 'true';
const problem = byId<HTMLElement>('refresh-problem');
const rows = byId<HTMLTableSectionElement>('webhook-rows');
/** The endpoint whose deliveries are shown. */
let shown: Webhook | undefined;

async function refresh(): Promise<number> {
  const webhooks = await getAll<Webhook>('/v1/webhooks');
  rows.replaceChildren(...webhooks.map(webhookRow));
  byId('no-webhooks').hidden = webhooks.length !== 0;
  shown = webhooks.find((webhook) => webhook.id === shown?.id);
  byId('deliveries').hidden = shown === undefined;
  if (shown !== undefined) await drawDeliveries(shown);
  // A test delivery is usually made within seconds: look again soon while one is pending.
  return byId('delivery-rows').querySelector('[data-status="pending"]') === null ? 60_000 : 2_000;
}

function webhookRow(webhook: Webhook): HTMLTableRowElement {
  const tr = element('tr');
  tr.dataset.webhookId = webhook.id;
  const endpoint = element('th', undefined, webhook.url);
  endpoint.scope = 'row';
  if (webhook.description !== '') endpoint.append(element('span', 'row-note', webhook.description));
  const events = element('td', undefined, webhook.event_types.includes('*') ? 'every event' : webhook.event_types.join(', '));
  const state = element('td', undefined, webhook.enabled ? 'enabled' : webhook.disabled_reason === 'gone' ? 'disabled: the endpoint answered 410 Gone' : 'disabled');
  const created = element('td');
  created.append(timeElement(new Date(webhook.created_at)));
  const actions = element('td', 'row-actions');
  actions.append(rowButton('Deliveries', `Deliveries to ${webhook.url}`, () => showDeliveries(webhook)));
  if (canEdit) {
    actions.append(
      rowButton('Send test', `Send a test event to ${webhook.url}`, () => change(() => callApi('POST', `/v1/webhooks/${webhook.id}/test`), webhook)),
      rowButton(webhook.enabled ? 'Disable' : 'Enable', `${webhook.enabled ? 'Disable' : 'Enable'} ${webhook.url}`, () => change(() => callApi('PUT', `/v1/webhooks/${webhook.id}`, { enabled: !webhook.enabled }))),
      rowButton('Delete', `Delete ${webhook.url}`, () => {
        if (window.confirm(`Delete the endpoint ${webhook.url} and its delivery log?`)) void change(() => callApi('DELETE', `/v1/webhooks/${webhook.id}`));
      }),
    );
  }
  tr.append(endpoint, events, state, created, actions);
  return tr;
}

/** Makes a change; `thenShow` opens that endpoint's deliveries (a test's delivery appears there). */
async function change(request: () => Promise<unknown>, thenShow?: Webhook): Promise<void> {
  const target = byId('webhook-action-problem');
  try {
    await request();
    target.hidden = true;
    if (thenShow !== undefined) shown = thenShow;
  } catch (error) {
    showProblem(target, error);
  }
  loop.now();
}

function showDeliveries(webhook: Webhook): void {
  shown = webhook;
  loop.now();
}

async function drawDeliveries(webhook: Webhook): Promise<void> {
  const answer = await getJson<{ data: Delivery[]; pagination: { total: number } }>(`/v1/webhooks/${encodeURIComponent(webhook.id)}/deliveries?per_page=50`);
  byId('deliveries-title').textContent = `Deliveries to ${webhook.url}`;
  const count = answer.pagination.total;
  byId('deliveries-status').textContent = count === 0 ? 'No delivery yet.' : `${count} deliver${count === 1 ? 'y' : 'ies'}${count > answer.data.length ? `, the newest ${answer.data.length} shown` : ''}.`;
  byId('delivery-rows').replaceChildren(...answer.data.map(deliveryRow));
}

function deliveryRow(delivery: Delivery): HTMLTableRowElement {
  const tr = element('tr');
  tr.dataset.status = delivery.status;
  const event = element('th', undefined, delivery.event_type);
  event.scope = 'row';
  event.append(element('span', 'row-note', delivery.event_id), element('span', 'row-note', `queued ${formatAge(Date.now() - Date.parse(delivery.created_at))}`));
  const attempts = element('td');
  if (delivery.attempt_history.length === 0) attempts.append(element('span', 'muted', 'not attempted yet'));
  else {
    const list = element('ol', 'attempts');
    for (const attempt of delivery.attempt_history) {
      const item = element('li');
      const answer = attempt.response_code === null ? `no answer: ${attempt.error ?? 'unknown error'}` : `HTTP ${attempt.response_code}${attempt.error === null ? '' : ` (${attempt.error})`}`;
      item.append(timeElement(new Date(attempt.attempted_at)), ` ${answer}, ${attempt.duration_ms} ms`);
      list.append(item);
    }
    attempts.append(list);
  }
  const next = element('td', delivery.next_attempt_at === null ? 'muted' : undefined);
  if (delivery.next_attempt_at === null) next.textContent = delivery.status === 'pending' ? 'now' : 'none';
  else next.append(timeElement(new Date(delivery.next_attempt_at)));
  tr.append(event, element('td', `delivery-${delivery.status}`, delivery.status), attempts, next);
  return tr;
}

function wireForm(): void {
  const form = byId<HTMLFormElement>('webhook-form');
  const all = byId<HTMLInputElement>('event-all');
  const types = () => [...form.querySelectorAll<HTMLInputElement>('input[name="event_types"]')];
  // "Every event" and single types exclude each other.
  for (const box of types()) {
    box.addEventListener('change', () => {
      if (box === all && all.checked) types().forEach((other) => (other.checked = other === all));
      if (box !== all && box.checked) all.checked = false;
    });
  }
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const chosen = types().filter((box) => box.checked).map((box) => box.value);
    const target = byId('webhook-problem');
    if (chosen.length === 0) {
      target.hidden = false;
      target.textContent = 'Choose at least one event.';
      return;
    }
    callApi<{ secret: string }>('POST', '/v1/webhooks', { url: byId<HTMLInputElement>('webhook-url').value, description: byId<HTMLInputElement>('webhook-description').value, event_types: chosen })
      .then((created) => {
        form.reset();
        target.hidden = true;
        showSecret(created.secret);
        loop.now();
      })
      .catch((error: unknown) => showProblem(target, error));
  });
  byId('copy-secret').addEventListener('click', () => {
    navigator.clipboard
      .writeText(byId('new-secret-value').textContent ?? '')
      .then(() => (byId('copy-status').textContent = 'Copied.'))
      .catch(() => (byId('copy-status').textContent = 'This browser refused the clipboard: select the secret and copy it.'));
  });
  byId('hide-secret').addEventListener('click', () => {
    byId('new-secret-value').textContent = '';
    byId('new-secret').hidden = true;
  });
}

function showSecret(secret: string): void {
  byId('new-secret-value').textContent = secret;
  byId('copy-status').textContent = '';
  byId('new-secret').hidden = false;
  byId('copy-secret').focus();
}

if (canEdit) wireForm();
const loop = startRefreshLoop({
  refresh,
  onProblem: (text) => {
    problem.hidden = text === undefined;
    problem.textContent = text ?? '';
  },
});
