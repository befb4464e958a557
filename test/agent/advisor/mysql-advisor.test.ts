import t from 'tap';
import { advisorJobs } from '../../helpers/advisor-jobs.js';
import { createThrowawayMysqlDatabase } from '../../helpers/throwaway-mysql-database.js';

const database = await createThrowawayMysqlDatabase();
t.teardown(() => database.drop());
const client = await database.connect();
await client.query('CREATE TABLE customers (id int PRIMARY KEY, email varchar(100) NOT NULL, region int NOT NULL, UNIQUE KEY customers_email (email)) ENGINE=InnoDB');
await client.query(`INSERT INTO customers SELECT seq, CONCAT('c', seq, '@example.test'), seq % 50 FROM seq_1_to_20000`);
await client.query('CREATE TABLE orders (id bigint AUTO_INCREMENT PRIMARY KEY, customer_id int NOT NULL, status varchar(10) NOT NULL, note text) ENGINE=InnoDB');
await client.query(`INSERT INTO orders (customer_id, status, note) SELECT seq % 20000, IF(seq % 100 = 0, 'open', 'closed'), 'n' FROM seq_1_to_100000`);
await client.query('CREATE INDEX orders_status_a ON orders (status)');
await client.query('CREATE INDEX orders_status_b ON orders (status)');
await client.query('ANALYZE TABLE customers, orders');

const dbInfo = { id: 'db_mysqladvisor000000000', name: 'advisor', type: 'mariadb' as const, connection: { ...database.settings, password: '' } };
const { analyze, apply } = advisorJobs(dbInfo);

t.test('joins: a full scan joined on a column gets an index on it', async (t) => {
  const result = await analyze(['SELECT `o` . `id` FROM `orders` `o` JOIN `customers` `c` ON `c` . `id` = `o` . `customer_id` WHERE `c` . `region` = ?']);
  t.equal(result.statements[0]?.outcome, 'suggestion', result.statements[0]?.detail ?? '');
  t.same(result.suggestions[0]?.target, { schema: database.name, table: 'orders', index_name: 'orders_customer_id_idx', columns: ['customer_id'] });
});

t.test('UPDATE and DELETE are planned too, in a transaction that is rolled back', async (t) => {
  const result = await analyze(['UPDATE `orders` SET `status` = ? WHERE `customer_id` = ?', 'DELETE FROM `orders` WHERE `customer_id` = ?']);
  t.same(result.statements.map((statement) => statement.outcome), ['suggestion', 'suggestion']);
  const [row] = await database.admin(`SELECT COUNT(*) AS n FROM \`${database.name}\`.orders WHERE status = '1'`);
  t.equal(Number(row?.n), 0, 'nothing was updated');
});

t.test('refused: executable comments, several statements, utility statements, truncated digests', async (t) => {
  const result = await analyze(['SELECT 1 /*!50000 ; DROP TABLE orders */', 'SELECT 1 ; DROP TABLE `orders`', 'OPTIMIZE TABLE `orders`', 'SELECT * FROM `orders` WHERE `status` = ? AND ...']);
  t.same(result.statements.map((statement) => statement.outcome), ['refused', 'refused', 'refused', 'refused']);
  t.match(result.statements[3]?.detail, /truncated/);
});

t.test('no suggestion for an equality an index serves, or a column a B-tree cannot hold', async (t) => {
  const result = await analyze(['SELECT * FROM `customers` WHERE `email` = ?', 'SELECT * FROM `orders` WHERE `note` = ?']);
  t.same(result.statements.map((statement) => statement.outcome), ['no_suggestion', 'no_suggestion']);
  t.match(result.statements[0]?.detail, /unique key lookup/, 'MariaDB resolves a unique lookup of the literal before planning');
});

t.test('index hygiene: the later of two identical indexes', async (t) => {
  const result = await analyze([], { indexHygiene: true });
  t.same(
    result.suggestions.map((suggestion) => [suggestion.kind, suggestion.target.index_name, suggestion.evidence.reason]),
    [['drop_index', 'orders_status_b', 'duplicate']],
  );
});

t.test('apply: the lock, a metadata lock timeout with its exact error, then success', async (t) => {
  const target = { schema: database.name, table: 'orders', index_name: 'orders_customer_id_idx', columns: ['customer_id'] };
  const holder = await database.connect();
  await holder.query("SELECT GET_LOCK(CONCAT('dbmon_apply:', DATABASE()), 0)");
  t.match(await apply('create_index', target), { outcome: 'failed', error: /Another dbmon apply holds the lock/ });
  await holder.query("SELECT RELEASE_LOCK(CONCAT('dbmon_apply:', DATABASE()))");

  await holder.query('START TRANSACTION');
  await holder.query('SELECT COUNT(*) FROM orders');
  const timedOut = await apply('create_index', target, { lockTimeoutMs: 1000 });
  t.match(timedOut, { outcome: 'failed', error: /ALGORITHM=INPLACE, LOCK=NONE failed: Lock wait timeout exceeded/ });
  await holder.query('ROLLBACK');

  t.equal((await apply('create_index', target)).outcome, 'applied');
  t.match(await apply('create_index', target), { outcome: 'failed', error: /exists already/ });
});
