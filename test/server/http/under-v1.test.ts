import t from 'tap';
import { underV1 } from '../../../server/http/under-v1.js';

t.test('a path is under /v1 whatever the case of its v, and nothing else is', async (t) => {
  for (const path of ['/v1', '/V1', '/v1/', '/V1/databases', '/v1/databases?x', '/v1//x']) t.ok(underV1(path), path);
  for (const path of ['', '/', '/v', '/v10', '/v1x/', '/v2/x', '//v1/', 'v1/', '/ｖ1/', '/\u0076\u0301/', '/v１/', '/databases/v1/']) t.notOk(underV1(path), path);
  // Every character whose lower case is "v": only V is (so no other spelling reaches the API's middleware).
  const lowersToV = [];
  for (let code = 0; code <= 0x10ffff; code++) {
    if (code >= 0xd800 && code <= 0xdfff) continue;
    const char = String.fromCodePoint(code);
    if (char.toLowerCase() === 'v') lowersToV.push(char);
  }
  t.same(lowersToV, ['V', 'v']);
});
