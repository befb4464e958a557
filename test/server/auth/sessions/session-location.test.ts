import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Reader, type CityResponse } from 'maxmind';
import t from 'tap';
import { sessionLocator } from '../../../../server/auth/sessions/session-location.js';
import { buildMmdbFile } from '../../../helpers/mmdb-file.js';
import { createPasswordUser, signIn } from '../../../helpers/sign-in.js';
import { createTenant, startTestServer } from '../../../helpers/test-server.js';

const london = { city: { geoname_id: 2643743, names: { en: 'London', de: 'London' } }, country: { iso_code: 'GB', names: { en: 'United Kingdom' } } };
const germany = { country: { iso_code: 'DE', names: { en: 'Germany' } } };
const fixture = () => buildMmdbFile({ '81.2.69.0/24': london, '2001:db8:1::/48': germany });

t.test('locating an address', async (t) => {
  const locate = sessionLocator(new Reader<CityResponse>(fixture()));
  t.same(locate('81.2.69.160'), { network: 'public', country_code: 'GB', country: 'United Kingdom', city: 'London' });
  t.same(locate('::ffff:81.2.69.160'), locate('81.2.69.160'), 'an IPv4-mapped address is its IPv4 form');
  t.same(locate('2001:db8:1::7'), { network: 'public', country_code: 'DE', country: 'Germany', city: null }, 'a country-level record has no city');
  t.equal(locate('81.2.70.1'), null, 'an address the database does not know');
  t.equal(locate('not an address'), null);
  for (const ip of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1']) t.same(locate(ip), { network: 'loopback', country_code: null, country: null, city: null }, ip);
  for (const ip of ['10.1.2.3', '172.16.0.1', '192.168.1.5', '100.64.0.1', '169.254.1.1', 'fd00::1', 'fe80::1']) t.same(locate(ip)?.network, 'private', ip);
  t.same(locate('172.32.0.1'), null, 'just outside 172.16.0.0/12 is public');
});

t.test('without geoip.database: null for public addresses, private ones still say so', async (t) => {
  const locate = sessionLocator(undefined);
  t.equal(locate('81.2.69.160'), null);
  t.equal(locate('192.168.1.5')?.network, 'private');
  t.equal(locate('::1')?.network, 'loopback');
});

t.test('GET /v1/sessions shows each session’s location from geoip.database', async (t) => {
  const stateDir = t.testdir();
  const databasePath = join(stateDir, 'GeoLite2-City.mmdb');
  writeFileSync(databasePath, fixture());
  const server = await startTestServer({ geoipDatabase: databasePath });
  t.teardown(server.close);
  const tenant = createTenant(server.services, server.clock.now, 'pro');
  const { email } = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
  await signIn(server, email, undefined, { ip: '81.2.69.160' });
  const current = await signIn(server, email, undefined, { ip: '192.168.1.5' });
  const listed = await server.request('GET', '/v1/sessions', { headers: current.headers() });
  t.equal(listed.status, 200, listed.text);
  t.same(
    // Both sessions began at the same instant of the test clock: their order is not the subject here.
    new Map(listed.body.data.map((session: { ip: string; location: unknown }) => [session.ip, session.location])),
    new Map([
      ['81.2.69.160', { network: 'public', country_code: 'GB', country: 'United Kingdom', city: 'London' }],
      ['192.168.1.5', { network: 'private', country_code: null, country: null, city: null }],
    ]),
  );
});
