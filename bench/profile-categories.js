// What a V8 CPU profile's samples were doing, by category: shared by the benches that read a
// server's `--cpu-prof` (ingest-profile.js, loop-turns.js).

/** Category, and the "function url" of a frame that puts a sample in it; the first that matches wins. */
const categories = [
  ['statement keys', /^(#statementKey|queryIdOf) /],
  ['statement interval start (lastReachedBefore)', /^lastReachedBefore /],
  ['statement intervals insert', /^recordInterval .*queries-repository/],
  ['samples insert', /^(insert .*samples-repository|#sampleValues )/],
  ['latest snapshot and database status', /^(#storeLatest|upsertLatest|recordCollection) /],
  ['database lookup', /^findAnyOrg /],
  ['batch id', /^(batchSeen|markBatch) /],
  ['alert evaluation (of the batch)', /^evaluateDatabases /],
  ['optimizations', /^measureAfter /],
  ['spool report', /^recordSpool /],
  ['ingest, the rest', /ingest-service/],
  ['rollup job', /rollup-job/],
  ['rollup seal job', /rollup-seal-job|rollup-blocks/],
  ['raw seal job', /seal-job|sealed-hours/],
  ['retention job', /retention/],
  ['other background jobs', /job-scheduler|steps-within/],
  ['agent identify', /^identify .*agents-service/],
  ['authentication', /^authenticate /],
  ['body read and JSON parse', /co-body|raw-body|bourne|^requireObject |inflate|zlib/],
  ['body validation', /^validate\d|compiled-body/],
  ['WAL fsync (off the loop: its JS side)', /fsync/],
  ['API reads (databases, history, queries)', /databases-service|databases-routes|metrics-service|history-presenter|queries-service/],
  ['HTTP and middleware', /koa|_http|http-server|app\.js|access-log|request-id|node:net|stream/],
  ['garbage collector', /^\(garbage collector\)/],
  ['idle', /^\(idle\)/],
];

/** A function from a sample's node id to its category: that of the innermost frame, from the sample outwards, that names one. */
export function sampleCategories(profile) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map(profile.nodes.flatMap((node) => (node.children ?? []).map((child) => [child, node.id])));
  const frameOf = (node) => `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url}`;
  const categoryById = new Map();
  const categoryOf = (id) => {
    let category = categoryById.get(id);
    if (category !== undefined) return category;
    const frame = frameOf(nodes.get(id));
    category = categories.find(([, pattern]) => pattern.test(frame))?.[0] ?? (parents.has(id) ? categoryOf(parents.get(id)) : 'other');
    categoryById.set(id, category);
    return category;
  };
  // Time SQLite spends in BEGIN and COMMIT themselves (the transaction wrapper's own time) is its own category.
  return (id) => (frameOf(nodes.get(id)).startsWith('sqliteTransaction ') ? 'BEGIN and COMMIT (the transaction wrapper itself)' : categoryOf(id));
}
