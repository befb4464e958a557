import t from 'tap';
import { checkStatement, tokenize } from '../../../agent/advisor/statement-guard.js';

t.test('one SELECT, UPDATE or DELETE passes, trailing semicolons and comments aside', async (t) => {
  for (const [text, kind] of [
    ['SELECT * FROM orders WHERE customer_id = $1', 'select'],
    ['  select 1;', 'select'],
    ['UPDATE orders SET status = $1 WHERE id = $2;;', 'update'],
    ['/* app */ DELETE FROM orders WHERE id = $1 -- by id', 'delete'],
    ["SELECT 'a;b', \"semi;colon\", $$x;y$$, $tag$ ; $tag$ FROM t", 'select'],
    ["SELECT E'it\\'s; fine' FROM t", 'select'],
  ] as const) {
    const verdict = checkStatement(text, 'postgresql');
    t.ok(verdict.ok, text);
    if (verdict.ok) t.equal(verdict.kind, kind, text);
  }
  const verdict = checkStatement('SELECT 1; -- trailing\n', 'postgresql');
  t.ok(verdict.ok && verdict.text === 'SELECT 1', 'the text without what trails it');
});

t.test('a second statement, a utility statement or a write through SELECT is refused', async (t) => {
  const refused: Array<[string, RegExp]> = [
    ['SELECT id FROM orders WHERE id = $1; DROP TABLE orders', /more than one statement/],
    ['SELECT 1; SELECT 2', /more than one statement/],
    ["SELECT ';' ; DROP TABLE t", /more than one statement/],
    ['DROP TABLE orders', /only SELECT, UPDATE and DELETE/],
    ['VACUUM orders', /only SELECT, UPDATE and DELETE/],
    ['INSERT INTO t VALUES (1)', /only SELECT, UPDATE and DELETE/],
    ['WITH x AS (DELETE FROM t RETURNING *) SELECT * FROM x', /only SELECT, UPDATE and DELETE/],
    ['SELECT * INTO copy FROM orders', /SELECT \.\.\. INTO/],
    ["SELECT 'unterminated", /unterminated string/],
    ['SELECT 1 /* open', /unterminated comment/],
    ['SELECT $a$ never closed', /unterminated dollar-quoted/],
    ['', /no statement/],
    ['SELECT 1\0', /NUL/],
  ];
  for (const [text, reason] of refused) {
    const verdict = checkStatement(text, 'postgresql');
    t.notOk(verdict.ok, text);
    if (!verdict.ok) t.match(verdict.reason, reason, text);
  }
});

t.test('PostgreSQL comments nest; MySQL executable comments are refused', async (t) => {
  t.notOk(checkStatement('SELECT 1 /* a /* b */ ; DROP TABLE t */ ; DROP TABLE t', 'postgresql').ok);
  t.ok(checkStatement('SELECT 1 /* a /* b */ ; still comment */', 'postgresql').ok);
  t.notOk(checkStatement('SELECT 1 /*!50000 ; DROP TABLE t */', 'mysql').ok);
  t.notOk(checkStatement('SELECT 1 /*M! ; DROP TABLE t */', 'mysql').ok);
  t.ok(checkStatement("SELECT * FROM `we;ird` WHERE a = 'x\\';y' # c;omment", 'mysql').ok);
  t.notOk(checkStatement("SELECT * FROM t WHERE a = \"x\\\"\" ; DROP TABLE t", 'mysql').ok);
  t.ok(checkStatement('SELECT 1 --x\n', 'postgresql').ok);
  t.notOk(checkStatement('SELECT 1 --1 ; DROP TABLE t', 'mysql').ok, 'in MySQL, -- needs a space to start a comment');
});

t.test('tokens', async (t) => {
  t.same(
    tokenize('SELECT `a` FROM t WHERE b IN (...) LIMIT ?', 'mysql').map((token) => [token.type, token.text]),
    [
      ['word', 'SELECT'], ['quoted_identifier', '`a`'], ['word', 'FROM'], ['word', 't'], ['word', 'WHERE'], ['word', 'b'], ['word', 'IN'],
      ['punct', '('], ['punct', '.'], ['punct', '.'], ['punct', '.'], ['punct', ')'], ['word', 'LIMIT'], ['placeholder', '?'],
    ],
  );
  t.same(tokenize('a = $12', 'postgresql').map((token) => token.type), ['word', 'punct', 'parameter']);
});

t.test('PostgreSQL ends a -- comment at a carriage return too', async (t) => {
  const smuggled = checkStatement('SELECT 1 --\r; DROP TABLE t', 'postgresql');
  t.notOk(smuggled.ok, 'a semicolon after \\r is a second statement');
  if (!smuggled.ok) t.match(smuggled.reason, /more than one statement/);
  t.ok(checkStatement('SELECT 1 # x\r; still a comment', 'mysql').ok, 'MySQL ends # and -- comments at \\n only');
});

t.test('the guard lexes as the engines do: whitespace, comment starts, dollar tags, escape strings', async (t) => {
  t.notOk(checkStatement('SELECT 1 --\u00a0; DROP TABLE t', 'mysql').ok, 'a no-break space does not start a MySQL comment');
  t.ok(checkStatement('SELECT 1 --\x01; still a comment', 'mysql').ok, 'a control character after -- starts a MySQL comment');
  t.ok(checkStatement('SELECT $é$ ; $é$', 'postgresql').ok, 'a dollar tag may hold non-ASCII letters');
  const tagged = checkStatement("SELECT $é$ ' $é$, public.evil() -- '", 'postgresql');
  t.ok(tagged.ok && tagged.tokens.some((token) => token.text === 'evil'), 'the call after a non-ASCII dollar-quoted string is seen');
  const identifierE = checkStatement("SELECT 1 AS éE'\\' , public.evil() -- '", 'postgresql');
  t.ok(!identifierE.ok || identifierE.tokens.some((token) => token.text === 'evil'), 'E after a non-ASCII letter belongs to the name: no escape string');
  const unicode = checkStatement('SELECT public.U&"\\0065vil"()', 'postgresql');
  t.notOk(unicode.ok, 'a Unicode-escaped name is refused');
  if (!unicode.ok) t.match(unicode.reason, /Unicode/);
});

t.test('MySQL quoting follows ANSI_QUOTES and NO_BACKSLASH_ESCAPES', async (t) => {
  const doubleQuoted = 'SELECT "a\\" ; DROP TABLE t; -- " FROM t';
  t.ok(checkStatement(doubleQuoted, 'mysql').ok, 'by default "..." is a string with backslash escapes');
  t.notOk(checkStatement(doubleQuoted, 'mysql', { ansiQuotes: true }).ok, 'under ANSI_QUOTES "..." is a name without escapes');
  t.same(
    tokenize('"a""b"', 'mysql', { ansiQuotes: true }).map((token) => [token.type, token.text]),
    [['quoted_identifier', '"a""b"']],
  );
  const singleQuoted = "SELECT 'a\\' ; DROP TABLE t; -- '";
  t.ok(checkStatement(singleQuoted, 'mysql').ok);
  t.notOk(checkStatement(singleQuoted, 'mysql', { noBackslashEscapes: true }).ok, 'under NO_BACKSLASH_ESCAPES a backslash escapes nothing');
  t.notOk(checkStatement('SELECT "a\\" ; DROP TABLE t; -- "', 'mysql', { noBackslashEscapes: true }).ok);
});
