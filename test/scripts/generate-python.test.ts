import { spawnSync } from 'node:child_process';
import t from 'tap';

interface PythonGenerator {
  generatePython(document: unknown): Promise<Record<string, string>>;
  snakeCase(operationId: string): string;
}

const generator = (await import(new URL('../../scripts/clients/generate-python.js', import.meta.url).href)) as PythonGenerator;

/** Shapes the served document does not have today, generated and then loaded by Python 3. */
const document = {
  openapi: '3.1.0',
  info: { title: 'edge cases', version: '0' },
  components: {
    schemas: {
      Tree: {
        type: 'object',
        properties: { flag: { type: 'boolean', enum: [false] }, children: { type: 'array', items: { $ref: '#/components/schemas/Tree' } }, anything: true, odd: { type: 'unknown-kind' } },
        required: ['flag'],
      },
    },
  },
  paths: {
    '/healthz': { get: { operationId: 'liveness', responses: { 200: {} } } },
    '/v1/trees/{id}': {
      patch: {
        operationId: 'patchTree',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        requestBody: { required: false, content: { 'application/json': { schema: { $ref: '#/components/schemas/Tree' } } } },
        responses: { 200: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Tree' } } } } },
      },
    },
  },
};

t.test('edge shapes become Python that loads', async (t) => {
  const source = Object.values(await generator.generatePython(document))[0] ?? '';
  t.match(source, /"flag": Literal\[False\]/, 'a boolean enum is a Python literal');
  t.match(source, /"children": List\["Tree"\]/, 'a schema that refers to itself does so by a forward reference');
  t.match(source, /"anything": Any, "odd": Any/, 'no schema, or an unknown type, is Any');
  t.match(source, /def patch_tree\(self, id: str, body: Optional\[Tree\] = None\) -> Tree:\n {8}"patchTree \(PATCH \/v1\/trees\/\{id\}\)\."/, 'an optional body defaults to None; no summary: the operationId');
  t.notMatch(source, /liveness/, 'only /v1 operations');
  t.notMatch(source, /WebhookEvent|WEBHOOK_EVENTS/, 'no webhooks, no event union');
  const loaded = spawnSync('python3', ['-c', `${source}\nprint(sorted(Tree.__required_keys__), sorted(Tree.__optional_keys__))`], { encoding: 'utf8' });
  t.equal(loaded.stdout, "['flag'] ['anything', 'children', 'odd']\n", loaded.stderr);
});

t.test('a document without components still gives the operations module', async (t) => {
  const source = Object.values(await generator.generatePython({ ...document, components: undefined, paths: {} }))[0] ?? '';
  const loaded = spawnSync('python3', ['-c', `${source}\nprint(LIST_OPERATIONS, [name for name in vars(Operations) if not name.startswith('__')])`], { encoding: 'utf8' });
  t.equal(loaded.stdout, "frozenset() ['_call']\n", loaded.stderr);
});

t.test('operation ids become snake case, OAuth as one word', async (t) => {
  t.equal(generator.snakeCase('listDatabases'), 'list_databases');
  t.equal(generator.snakeCase('createOAuthApplication'), 'create_oauth_application');
  t.equal(generator.snakeCase('oauthToken'), 'oauth_token');
  t.equal(generator.snakeCase('getAgentAssignments'), 'get_agent_assignments');
});
