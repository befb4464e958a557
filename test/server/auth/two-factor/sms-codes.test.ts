import t from 'tap';
import { SmsCodes } from '../../../../server/auth/two-factor/sms-codes.js';

const at = (ms: number) => new Date(Date.UTC(2026, 2, 2, 10) + ms);

t.test('a code: 6 digits, for its binding only, once, until 10 minutes are up, 5 wrong guesses', async (t) => {
  const codes = new SmsCodes();
  const code = codes.issue('sign_in:a', at(0));
  t.match(code, /^\d{6}$/);
  t.notOk(codes.consume('sign_in:b', code, at(1)), 'another binding');
  t.ok(codes.consume('sign_in:a', ` ${code.slice(0, 3)} ${code.slice(3)} `, at(1)), 'spaces as typed');
  t.notOk(codes.consume('sign_in:a', code, at(2)), 'once');

  const late = codes.issue('sign_in:a', at(0));
  t.notOk(codes.consume('sign_in:a', late, at(10 * 60_000)), 'expired at 10 minutes');
  const inTime = codes.issue('sign_in:a', at(0));
  t.ok(codes.consume('sign_in:a', inTime, at(10 * 60_000 - 1)), 'valid just before');

  const replaced = codes.issue('sign_in:a', at(0));
  const newer = codes.issue('sign_in:a', at(0));
  if (replaced !== newer) t.notOk(codes.consume('sign_in:a', replaced, at(1)), 'a new code replaces the old');
  const guessed = codes.issue('sign_in:c', at(0));
  const wrong = String((Number(guessed) + 1) % 1_000_000).padStart(6, '0');
  for (let attempt = 0; attempt < 5; attempt++) t.notOk(codes.consume('sign_in:c', wrong, at(1)));
  t.notOk(codes.consume('sign_in:c', guessed, at(1)), 'the right code after 5 wrong ones');
  t.notOk(codes.consume('sign_in:d', 'abcdef', at(1)), 'nothing issued');
});
