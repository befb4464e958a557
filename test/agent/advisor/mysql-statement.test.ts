import t from 'tap';
import { checkStatement } from '../../../agent/advisor/statement-guard.js';
import { conditionColumns, executableDigest, tableAliases } from '../../../agent/advisor/mysql-statement.js';

const tokens = (text: string) => {
  const verdict = checkStatement(text, 'mysql');
  if (!verdict.ok) throw new Error(verdict.reason);
  return verdict;
};
const executable = (text: string) => {
  const verdict = tokens(text);
  return executableDigest(verdict.text, verdict.tokens);
};

t.test('digest texts get safe literals', async (t) => {
  t.equal(executable('SELECT * FROM `t` WHERE `a` = ? AND `b` = ?'), "SELECT * FROM `t` WHERE `a` = '1' AND `b` = '1'");
  t.equal(executable('SELECT * FROM `t` WHERE `a` IN (...) LIMIT ?'), "SELECT * FROM `t` WHERE `a` IN ('1') LIMIT 1");
  t.equal(executable('SELECT * FROM `t` LIMIT ? , ?'), 'SELECT * FROM `t` LIMIT 1 , 1');
  t.equal(executable('SELECT * FROM `t` LIMIT ? OFFSET ?'), 'SELECT * FROM `t` LIMIT 1 OFFSET 1');
  t.equal(executable('UPDATE `t` SET `b` = ? WHERE `id` = ?'), "UPDATE `t` SET `b` = '1' WHERE `id` = '1'");
  t.equal(executable('SELECT * FROM `t` WHERE `a` = ? AND `b` = ...'), undefined, 'a truncated digest');
});

t.test('aliases from FROM, JOIN and UPDATE', async (t) => {
  const aliases = tableAliases(tokens('SELECT * FROM `u` , `t` `t1` JOIN `shop` . `t` AS `t2` ON `t2` . `c` = `t1` . `a` WHERE `t1` . `b` = ?').tokens);
  t.same(Object.fromEntries(aliases), {
    u: { schema: null, table: 'u' },
    t1: { schema: null, table: 't' },
    t2: { schema: 'shop', table: 't' },
  });
  t.same(Object.fromEntries(tableAliases(tokens('UPDATE `orders` SET `a` = ? WHERE `id` = ?').tokens)), { orders: { schema: null, table: 'orders' } });
  t.same(Object.fromEntries(tableAliases(tokens('DELETE FROM orders WHERE id = ?').tokens)), { orders: { schema: null, table: 'orders' } });
});

t.test('equality and join columns of EXPLAIN conditions', async (t) => {
  t.same(conditionColumns("t.a = '1' and t.b = '1' and t.c > 3"), [
    { alias: 't', column: 'a', role: 'equality' },
    { alias: 't', column: 'b', role: 'equality' },
  ]);
  t.same(conditionColumns('t2.c = t1.a'), [
    { alias: 't2', column: 'c', role: 'join' },
    { alias: 't1', column: 'a', role: 'join' },
  ]);
  t.same(conditionColumns("((`shop`.`t`.`a` = '1') and (`shop`.`t`.`d` in ('1','2')))"), [
    { alias: 't', column: 'a', role: 'equality' },
    { alias: 't', column: 'd', role: 'equality' },
  ]);
  t.same(conditionColumns("t.a <= '1' and t.b >= 2 and t.c <> 1"), []);
});
