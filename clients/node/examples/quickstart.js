import { DbmonClient } from '@dbmon/client';

const dbmon = new DbmonClient(); // DBMON_API_KEY and DBMON_BASE_URL from the environment
for await (const database of dbmon.paginate.listDatabases({ per_page: 50 })) {
  console.log(database.name, database.type, database.status);
}
