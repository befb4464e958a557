import { ESLint } from 'eslint';
import t from 'tap';

// The lint rule that keeps a feature's repository its own: what it refuses and what it lets through.

const eslint = new ESLint({ cwd: process.cwd() });

async function refusedImports(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.filter((message) => message.ruleId === 'no-restricted-imports').map((message) => message.message);
}

t.test("another feature's repository is refused, type imports too", async (t) => {
  t.equal((await refusedImports('server/auth/users/example.ts', "import type { User } from '../identity/users-repository.js';\nexport type X = User;\n")).length, 1);
  t.equal((await refusedImports('server/ui/example.ts', "import { UsersRepository } from '../auth/identity/users-repository.js';\nexport const x = UsersRepository;\n")).length, 1);
  t.equal((await refusedImports('server/auth/create-example.ts', "import { SamplesRepository } from '../metrics/samples-repository.js';\nexport const x = SamplesRepository;\n")).length, 1);
});

t.test("a sub-feature's repository is built only by the composition one folder up", async (t) => {
  const code = "import { SessionsRepository } from './sessions/sessions-repository.js';\nexport const x = SessionsRepository;\n";
  t.equal((await refusedImports('server/auth/example.ts', code)).length, 1);
  t.equal((await refusedImports('server/compose-example.ts', "import { SamplesRepository } from './metrics/samples-repository.js';\nexport const x = SamplesRepository;\n")).length, 1);
  t.same(await refusedImports('server/auth/create-example.ts', code), []);
});

t.test("a feature's own repository, and another feature's row types, are fine", async (t) => {
  t.same(await refusedImports('server/auth/users/example.ts', "import { UsersRepository } from './users-repository.js';\nexport const x = UsersRepository;\n"), []);
  t.same(await refusedImports('server/ui/example.ts', "import type { User } from '../auth/identity/user.js';\nexport type X = User;\n"), []);
});
