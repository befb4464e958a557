import t from 'tap';
import { createTenant, startTestServer } from '../../helpers/test-server.js';

const validDatabase = { name: 'db', type: 'postgresql', connection: { host: 'h', database: 'd', username: 'u' } };

t.test('every failure answers with the contract error body', async (t) => {
  const server = await startTestServer({ bodyLimitBytes: 2048 });
  t.teardown(server.close);
  const { key } = createTenant(server.services, server.clock.now);

  await t.test('unknown route: 404 not_found', async (t) => {
    const response = await server.request('GET', '/v1/nothing-here', { key });
    t.equal(response.status, 404);
    t.equal(response.body.error.type, 'not_found');
    t.equal(response.body.error.code, 'resource_missing');
    const outside = await server.request('GET', '/nowhere');
    t.equal(outside.status, 404);
    t.equal(outside.body.error.type, 'not_found');
  });

  await t.test('wrong method: 405 with Allow', async (t) => {
    const response = await server.request('PATCH', '/v1/databases', { key });
    t.equal(response.status, 405);
    t.equal(response.headers.get('allow'), 'HEAD, GET, POST');
    t.equal(response.body.error.type, 'invalid_request');
    t.equal(response.body.error.code, 'method_not_allowed');
  });

  await t.test('malformed JSON: 400 invalid_json', async (t) => {
    const response = await server.request('POST', '/v1/databases', {
      key,
      rawBody: '{"name": ',
      headers: { 'content-type': 'application/json' },
    });
    t.equal(response.status, 400);
    t.equal(response.body.error.code, 'invalid_json');
  });

  await t.test('valid JSON that is not an object: 400 naming the body, not "not valid JSON"', async (t) => {
    for (const rawBody of ['null', '[]', '[{"name":"db"}]', '42', '"text"', 'true']) {
      const response = await server.request('POST', '/v1/databases', { key, rawBody, headers: { 'content-type': 'application/json' } });
      t.equal(response.status, 400, rawBody);
      t.same(
        response.body.error,
        { type: 'invalid_request', message: 'The request body must be a JSON object', code: 'invalid_parameter' },
        rawBody,
      );
    }
    const empty = await server.request('POST', '/v1/databases', { key, rawBody: '', headers: { 'content-type': 'application/json' } });
    t.equal(empty.body.error.code, 'missing_required_parameter', 'an empty body is still an empty object');
  });

  await t.test('wrong content type: 400 unsupported_content_type', async (t) => {
    const response = await server.request('POST', '/v1/databases', {
      key,
      rawBody: 'name=db',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    t.equal(response.status, 400);
    t.equal(response.body.error.code, 'unsupported_content_type');
    t.equal(response.body.error.param, 'Content-Type');
  });

  await t.test('oversized body: 400 body_too_large, nothing stored', async (t) => {
    const response = await server.request('POST', '/v1/databases', {
      key,
      body: { ...validDatabase, name: 'x'.repeat(4000) },
    });
    t.equal(response.status, 400);
    t.equal(response.body.error.code, 'body_too_large');
    const list = await server.request('GET', '/v1/databases', { key });
    t.equal(list.body.pagination.total, 0);
  });

  await t.test('unknown field: 400 unknown_parameter naming it', async (t) => {
    const response = await server.request('POST', '/v1/databases', { key, body: { ...validDatabase, colour: 'red' } });
    t.equal(response.status, 400);
    t.same(response.body.error, {
      type: 'invalid_request',
      message: 'Unknown parameter: colour',
      param: 'colour',
      code: 'unknown_parameter',
    });
    const query = await server.request('GET', '/v1/databases?sort=name', { key });
    t.equal(query.body.error.code, 'unknown_parameter');
    t.equal(query.body.error.param, 'sort');
  });

  await t.test('missing parameter: 400 missing_required_parameter naming it', async (t) => {
    const response = await server.request('POST', '/v1/databases', {
      key,
      body: { name: 'db', type: 'postgresql', connection: { database: 'd', username: 'u' } },
    });
    t.equal(response.status, 400);
    t.equal(response.body.error.type, 'invalid_request');
    t.equal(response.body.error.code, 'missing_required_parameter');
    t.equal(response.body.error.param, 'connection.host');
  });

  await t.test('every response carries X-Request-Id; a caller id is kept', async (t) => {
    const own = await server.request('GET', '/healthz', { headers: { 'x-request-id': 'trace-12345678' } });
    t.equal(own.headers.get('x-request-id'), 'trace-12345678');
    const made = await server.request('GET', '/v1/nothing', { headers: { 'x-request-id': 'bad id with spaces' } });
    t.match(made.headers.get('x-request-id'), /^[0-9a-f-]{36}$/);
  });

  await t.test('a 500 leaks no stack or SQL and is logged with its request id', async (t) => {
    server.db.exec('ALTER TABLE databases RENAME TO databases_gone');
    t.teardown(() => server.db.exec('ALTER TABLE databases_gone RENAME TO databases'));
    const response = await server.request('GET', '/v1/databases/db_0000000000000000000000', { key });
    t.equal(response.status, 500);
    t.equal(response.body.error.type, 'api_error');
    const requestId = response.headers.get('x-request-id')!;
    t.match(response.body.error.message, requestId);
    t.notMatch(response.text, /SELECT|databases|at .*\.ts|sqlite/i);
    t.ok(server.logLines.some((line) => line.includes(requestId) && line.includes('"level":50')), 'logged as an error');
  });
});
