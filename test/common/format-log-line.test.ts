import t from 'tap';
import { formatLogLine } from '../../common/format-log-line.js';

const at = new Date(2026, 10, 22, 10, 4, 5, 67).getTime(); // local time 10:04:05.067

t.test('a JSON line becomes time, level, message and key=value fields', async (t) => {
  const line = JSON.stringify({ level: 30, time: at, pid: 42, msg: 'dbmon server listening', address: '127.0.0.1', port: 7117, stateDir: '/var/lib/dbmon' });
  t.equal(formatLogLine(line, { colors: false }), '10:04:05.067 INFO  dbmon server listening address=127.0.0.1 port=7117 stateDir=/var/lib/dbmon\n');
});

t.test('values with spaces, quotes and structure are shown as JSON', async (t) => {
  const line = JSON.stringify({ level: 40, time: at, msg: 'odd', text: 'two words', empty: '', nested: { a: [1, 2] }, flag: true, none: null });
  t.equal(formatLogLine(line, { colors: false }), '10:04:05.067 WARN  odd text="two words" empty="" nested={"a":[1,2]} flag=true none=null\n');
});

t.test("an error's stack is indented below the line", async (t) => {
  const line = JSON.stringify({ level: 50, time: at, msg: 'crashed', err: { type: 'Error', message: 'boom', stack: 'Error: boom\n    at here' } });
  t.equal(formatLogLine(line, { colors: false }), '10:04:05.067 ERROR crashed err=boom\n    Error: boom\n        at here\n');
});

t.test('colours only when asked; other text passes through', async (t) => {
  const line = JSON.stringify({ level: 60, time: at, msg: 'dead' });
  t.equal(formatLogLine(line, { colors: true }), '\x1b[2m10:04:05.067\x1b[0m \x1b[35mFATAL\x1b[0m dead\n');
  t.equal(formatLogLine('not json', { colors: false }), 'not json\n');
  t.equal(formatLogLine('[1,2]', { colors: false }), '[1,2]\n');
  t.equal(formatLogLine(JSON.stringify({ msg: 'no level or time' }), { colors: false }), ' INFO  no level or time\n');
});
