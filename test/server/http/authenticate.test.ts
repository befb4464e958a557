import t from 'tap';
import { AuthenticationError } from '../../../server/errors.js';
import { requirePrincipal } from '../../../server/http/authenticate.js';

t.test('a route reached without an authentication result fails closed as 401', async (t) => {
  let thrown: unknown;
  try {
    requirePrincipal(undefined, { scope: 'databases', access: 'read' });
  } catch (error) {
    thrown = error;
  }
  t.type(thrown, AuthenticationError);
  t.equal((thrown as AuthenticationError).status, 401);
  t.equal((thrown as AuthenticationError).code, 'missing_api_key');
});
