import { createHash } from 'node:crypto';
import t from 'tap';
import { hashToken, hashTokenBase64, issueChecksummedToken } from '../../../server/crypto/checksummed-token.js';

t.test('a secret is stored as its SHA-256, and looked up by the same bytes in base64', async (t) => {
  const { value, hash } = issueChecksummedToken('dbm_pat_');
  const expected = createHash('sha256').update(value).digest();
  t.same(hash, expected, 'issued with its SHA-256');
  t.same(hashToken(value), expected);
  t.equal(hashTokenBase64(value), expected.toString('base64'));
  t.equal(hashTokenBase64('é'), createHash('sha256').update('é', 'utf8').digest('base64'), 'a string hashes as its UTF-8 bytes');
});
