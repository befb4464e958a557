/**
 * Sets variables of this test process's environment (undefined unsets one) until the test ends.
 * For libraries that read `process.env` themselves, as node-postgres does.
 */
export function withProcessEnvironment(t: { teardown(fn: () => unknown): void }, values: Record<string, string | undefined>): void {
  const before = Object.fromEntries(Object.keys(values).map((name) => [name, process.env[name]]));
  const assign = (entries: Record<string, string | undefined>): void => {
    for (const [name, value] of Object.entries(entries)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  assign(values);
  t.teardown(() => assign(before));
}
