import { metricCatalog } from '../../common/metric-catalog.js';
import { decodeHourBlock } from '../../server/metrics/blocks/hour-block.js';
import type { Db } from '../../server/storage/open-database.js';

const metricColumns = metricCatalog.map((metric) => metric.column);
const columns = ['database_id', 'ts', 'reachable', ...metricColumns, 'latency_source'];

/**
 * Fills the connection's temporary table `every_sample` with every stored raw sample, rows of
 * `samples` and sealed hours alike (a sealed value as its block keeps it): what a test counts
 * stored samples in, whether the seal job has run or not.
 */
export function fillEverySample(db: Db): void {
  db.exec(`DROP TABLE IF EXISTS temp.every_sample; CREATE TEMP TABLE every_sample AS SELECT ${columns.join(', ')} FROM samples`);
  const insert = db.prepare(`INSERT INTO temp.every_sample (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
  const hours = db.prepare('SELECT database_id, hour, block FROM sample_hours').all() as { database_id: string; hour: number; block: Buffer }[];
  for (const { database_id, hour, block } of hours) {
    for (const sample of decodeHourBlock(hour, block, metricColumns)) insert.run(columns.map((column) => (column === 'database_id' ? database_id : sample[column])));
  }
}
