import type { Viewer } from '../page-viewer.js';
import { AlertRulesSection } from './alert-rules-section.js';
import { ConnectionSection } from './connection-section.js';
import type { DatabaseRecord, DatabaseSectionsSource, SlowQuerySort } from './database-sections-source.js';
import { OptimizationsSection } from './optimizations-section.js';
import { SlowQueriesSection, type SlowQueryRange } from './slow-queries-section.js';

/** Whether the viewer may change what the page shows; the API decides again on every call. */
export const canWrite = (viewer: Viewer): boolean => viewer.principal.access === 'write';

/** The database page's sections below its charts, read on the server in the viewer's organization. */
export function DatabaseSections(props: { source: DatabaseSectionsSource; viewer: Viewer; database: DatabaseRecord; range: { text: SlowQueryRange; ms: number }; sort: SlowQuerySort; now: Date }) {
  const { source, viewer, database, range, sort, now } = props;
  const orgId = viewer.principal.orgId;
  const writes = canWrite(viewer);
  return (
    <>
      <p id="sections-problem" class="alert" role="alert" hidden />
      <SlowQueriesSection databaseId={database.id} queries={source.slowQueries(orgId, database.id, range, sort, now)} range={range.text} sort={sort} />
      <OptimizationsSection optimizations={source.optimizations(orgId, database.id)} canWrite={writes} />
      <AlertRulesSection rules={source.rules(orgId, database.id)} canWrite={writes} />
      <ConnectionSection database={database} canWrite={writes} />
    </>
  );
}
