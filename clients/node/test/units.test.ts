import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import t from 'tap';
import { APIError, AuthenticationError, ConflictError, PermissionDeniedError, RateLimitError, verifyWebhook, version, WebhookVerificationError, type WebhookEventOf } from '../src/index.js';
import { errorFromAnswer } from '../src/errors.js';
import { nextLink } from '../src/pagination.js';
import { retryDelayMs } from '../src/retry-policy.js';

const policy = { maxRetries: 2, maxRetryWaitSeconds: 60 };
const half = () => 0.5;

t.test('retry decisions', async (t) => {
  const tooMany = { kind: 'answer', status: 429, retryAfterSeconds: undefined } as const;
  t.equal(retryDelayMs(policy, 'POST', tooMany, 0, half), 250, '429 on a POST: retried, backoff base 0.5 s with jitter');
  t.equal(retryDelayMs(policy, 'GET', tooMany, 1, half), 500, 'the backoff doubles');
  t.equal(retryDelayMs({ maxRetries: 20, maxRetryWaitSeconds: 60 }, 'GET', tooMany, 10, () => 0.999), 7992, 'capped at 8 s');
  t.equal(retryDelayMs(policy, 'GET', tooMany, 2, half), undefined, 'no more than maxRetries');
  t.equal(retryDelayMs(policy, 'POST', { kind: 'answer', status: 429, retryAfterSeconds: 7 }, 0, half), 7000, 'Retry-After honoured exactly');
  t.equal(retryDelayMs(policy, 'GET', { kind: 'answer', status: 429, retryAfterSeconds: 61 }, 0, half), undefined, 'a Retry-After beyond the max wait is not waited for');
  t.equal(retryDelayMs(policy, 'GET', { kind: 'answer', status: 503, retryAfterSeconds: undefined }, 0, half), 250, '5xx on GET: retried');
  for (const method of ['PUT', 'DELETE', 'HEAD', 'OPTIONS']) t.ok(retryDelayMs(policy, method, { kind: 'answer', status: 500, retryAfterSeconds: undefined }, 0, half) !== undefined, `5xx on ${method}: retried`);
  for (const method of ['POST', 'PATCH']) t.equal(retryDelayMs(policy, method, { kind: 'answer', status: 500, retryAfterSeconds: undefined }, 0, half), undefined, `5xx on ${method}: not retried`);
  t.equal(retryDelayMs(policy, 'GET', { kind: 'answer', status: 404, retryAfterSeconds: undefined }, 0, half), undefined, 'a 4xx other than 429: not retried');
  t.equal(retryDelayMs(policy, 'POST', { kind: 'connection', refusedBeforeSending: false }, 0, half), undefined, 'a POST that may have reached the server: not retried');
  t.equal(retryDelayMs(policy, 'POST', { kind: 'connection', refusedBeforeSending: true }, 0, half), 250, 'a POST refused before sending: retried');
  t.equal(retryDelayMs(policy, 'GET', { kind: 'connection', refusedBeforeSending: false }, 0, half), 250, 'a GET whose connection failed: retried');
});

t.test('errors from answers', async (t) => {
  const headers = new Headers({ 'x-request-id': 'req_1', 'retry-after': '12' });
  const envelope = (type: string) => ({ error: { type, message: `a ${type}`, code: 'some_code', param: 'name' } });
  t.match(errorFromAnswer(401, headers, envelope('authentication_error')), new AuthenticationError('a authentication_error', { status: 401, type: 'authentication_error', code: 'some_code', param: 'name', requestId: 'req_1' }));
  t.type(errorFromAnswer(403, headers, envelope('permission_error')), PermissionDeniedError);
  t.type(errorFromAnswer(409, headers, envelope('conflict')), ConflictError);
  t.type(errorFromAnswer(500, headers, envelope('api_error')), APIError);
  t.type(errorFromAnswer(418, headers, envelope('something_new')), APIError, 'an unknown type');
  const limited = errorFromAnswer(429, headers, { error: { type: 'rate_limit_exceeded', message: 'slow down', retry_after: 1_800_000_000 } });
  t.match(limited, { name: 'RateLimitError', retryAfter: 12, resetAt: 1_800_000_000, message: 'slow down' });
  t.type(limited, RateLimitError);
  const oauth = errorFromAnswer(400, new Headers(), { error: 'invalid_grant', error_description: 'the code expired' });
  t.match(oauth, { name: 'InvalidRequestError', code: 'invalid_grant', message: 'the code expired', requestId: undefined });
  t.match(errorFromAnswer(401, new Headers(), { error: 'invalid_client' }), { name: 'AuthenticationError', message: 'invalid_client' });
  t.match(errorFromAnswer(404, new Headers(), 'Not Found'), { name: 'NotFoundError', message: 'HTTP 404' }, 'no envelope: by status');
  t.match(errorFromAnswer(502, new Headers({ 'retry-after': 'Wed, 21 Oct 2026 07:28:00 GMT' }), { error: null }), { name: 'APIError', message: 'HTTP 502' });
  t.match(errorFromAnswer(429, new Headers({ 'retry-after': 'soon' }), { error: { type: 7 } }), { retryAfter: undefined, resetAt: undefined, type: undefined });
});

t.test('the next page from a Link header', async (t) => {
  t.equal(nextLink('<http://h/v1/x?per_page=2&page=3>; rel="next", <http://h/v1/x?per_page=2&page=1>; rel="prev"'), 'http://h/v1/x?per_page=2&page=3');
  t.equal(nextLink('<http://h/v1/x?page=1>; rel="first", <http://h/v1/x?page=2>; rel=next'), 'http://h/v1/x?page=2');
  t.equal(nextLink('<http://h/v1/x?page=1>; rel="prev"'), undefined);
  t.equal(nextLink('<http://h/v1/x?page=1>; rel="nextish"'), undefined);
  t.equal(nextLink('garbage'), undefined);
  t.equal(nextLink(null), undefined);
});

t.test('the version is the package.json one', async (t) => {
  t.equal(version, JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version);
});

t.test('webhook signature edge cases', async (t) => {
  const key = Buffer.alloc(24, 7);
  const secret = `whsec_${key.toString('base64')}`;
  const body = '{"id":"evt_1","type":"alert.triggered","created_at":"2026-11-24T00:00:00.000Z","data":{"object":{}}}';
  const nowMs = 1_800_000_000_000;
  const sign = (timestamp: number, payload = body, signingKey = key) => `v1,${createHmac('sha256', signingKey).update(`evt_1.${timestamp}.${payload}`).digest('base64')}`;
  const headers = (timestamp: number, signature = sign(timestamp)) => ({ 'webhook-id': 'evt_1', 'webhook-timestamp': String(timestamp), 'webhook-signature': signature });
  const now = nowMs / 1000;

  t.equal(verifyWebhook(body, headers(now), secret, { nowMs }).type, 'alert.triggered');
  t.equal(verifyWebhook(Buffer.from(body), new Headers(headers(now)), secret, { nowMs }).id, 'evt_1', 'bytes and a Headers');
  t.equal(verifyWebhook(body, headers(now), key.toString('base64'), { nowMs }).id, 'evt_1', 'a secret without whsec_');
  t.equal(verifyWebhook(body, headers(now, `v1,AAAA v2,xyz ${sign(now)}`), secret, { nowMs }).id, 'evt_1', 'any of several signatures');
  t.equal(verifyWebhook(body, { 'Webhook-Signature': undefined, 'WEBHOOK-ID': ['evt_1'], 'Webhook-Timestamp': String(now), 'webhook-signature': sign(now) }, secret, { nowMs }).id, 'evt_1', 'header names in any case, arrays');
  t.equal(verifyWebhook(body, headers(now - 299), secret, { nowMs }).id, 'evt_1', 'within the tolerance');

  const refusals: Array<[string, () => unknown]> = [
    ['too old', () => verifyWebhook(body, headers(now - 301), secret, { nowMs })],
    ['too new', () => verifyWebhook(body, headers(now + 301), secret, { nowMs })],
    ['too old for a tighter tolerance', () => verifyWebhook(body, headers(now - 11), secret, { nowMs, toleranceSeconds: 10 })],
    ['old by the real clock', () => verifyWebhook(body, headers(now), secret)],
    ['tampered payload', () => verifyWebhook(body.replace('triggered', 'resolved'), headers(now), secret, { nowMs })],
    ['wrong secret', () => verifyWebhook(body, headers(now), `whsec_${Buffer.alloc(24, 8).toString('base64')}`, { nowMs })],
    ['signed for another timestamp', () => verifyWebhook(body, headers(now, sign(now - 1)), secret, { nowMs })],
    ['another scheme', () => verifyWebhook(body, headers(now, sign(now).replace('v1,', 'v2,')), secret, { nowMs })],
    ['a truncated signature', () => verifyWebhook(body, headers(now, sign(now).slice(0, 20)), secret, { nowMs })],
    ['no signature value', () => verifyWebhook(body, headers(now, 'v1'), secret, { nowMs })],
    ['a timestamp that is not a number', () => verifyWebhook(body, { ...headers(now), 'webhook-timestamp': '1e9' }, secret, { nowMs })],
    ['a missing header', () => verifyWebhook(body, { 'webhook-id': 'evt_1', 'webhook-signature': sign(now) }, secret, { nowMs })],
    ['a missing id', () => verifyWebhook(body, new Headers({ 'webhook-timestamp': String(now), 'webhook-signature': sign(now) }), secret, { nowMs })],
    ['a signed payload that is not JSON', () => verifyWebhook('not json', headers(now, sign(now, 'not json')), secret, { nowMs })],
  ];
  for (const [name, attempt] of refusals) t.throws(attempt, WebhookVerificationError, name);
});

t.test('the verified event is typed by its type', async (t) => {
  const secret = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;
  const body = JSON.stringify({ id: 'evt_2', type: 'database.status_changed', created_at: '2026-11-24T00:00:00.000Z', data: { object: { id: 'db_1', status: 'warning' }, previous_attributes: { status: 'healthy' } } });
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = `v1,${createHmac('sha256', Buffer.alloc(24, 7)).update(`evt_2.${timestamp}.${body}`).digest('base64')}`;
  const event = verifyWebhook(body, { 'webhook-id': 'evt_2', 'webhook-timestamp': timestamp, 'webhook-signature': signature }, secret);
  if (event.type !== 'database.status_changed') throw new Error(`a ${event.type} event`);
  const before: 'pending' | 'healthy' | 'warning' | 'critical' | 'unreachable' | 'paused' = event.data.previous_attributes.status;
  t.equal(before, 'healthy');
  t.equal(event.data.object.status, 'warning');
  const alertEvent = (triggered: WebhookEventOf<'alert.triggered'>) =>
    // @ts-expect-error only database.status_changed carries previous_attributes
    triggered.data.previous_attributes;
  t.type(alertEvent, 'function');
});
