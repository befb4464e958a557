import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';

/** A configuration problem, always naming the offending key. */
export class ConfigError extends Error {
  constructor(
    readonly key: string,
    readonly problem: string,
  ) {
    super(`${key}: ${problem}`);
    this.name = 'ConfigError';
  }
}

/** Binds a dotted config path to an environment variable and a command-line flag. */
export interface ConfigBinding {
  path: string;
  env: string;
  flag?: string;
  /** Secrets also accept `<ENV>_FILE` and `<leaf>_file` in YAML, whose file content is the value. */
  secret?: boolean;
  /** Keep environment and flag values as text (a host named `0` stays a string); secrets always are. */
  text?: boolean;
  /**
   * Name of a systemd credential (`LoadCredential=<name>:...`): when `CREDENTIALS_DIRECTORY` is set and
   * holds a file of this name, its trimmed content is the value, above YAML and below the environment.
   */
  credential?: string;
}

export interface ConfigSources {
  yamlPath: string | undefined;
  env: NodeJS.ProcessEnv;
  flags: Record<string, string | undefined>;
}

type Tree = Record<string, unknown>;

export function loadLayeredConfig<S extends z.ZodType>(
  schema: S,
  bindings: readonly ConfigBinding[],
  sources: ConfigSources,
): Readonly<z.output<S>> {
  const tree = sources.yamlPath === undefined ? {} : readYaml(sources.yamlPath);
  for (const binding of bindings) {
    // The highest source wins and the ones below it are not read: an unreadable YAML `<key>_file`
    // does not matter when a credential or the environment supplies the value.
    const fromFlag = binding.flag === undefined ? undefined : sources.flags[binding.flag];
    const override =
      fromFlag !== undefined ? (binding.text ? fromFlag : scalar(fromFlag)) : (envValue(binding, sources.env) ?? credentialValue(binding, sources.env));
    if (override === undefined) {
      if (binding.secret) resolveYamlSecretFile(tree, binding.path, sources.yamlPath);
    } else {
      if (binding.secret) dropYamlSecretFile(tree, binding.path);
      setPath(tree, binding.path, override);
    }
  }
  const result = schema.safeParse(tree);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const unknownKey = issue.code === 'unrecognized_keys' ? issue.keys[0] : undefined;
    const path = [...issue.path, ...(unknownKey === undefined ? [] : [unknownKey])].join('.');
    throw new ConfigError(path || '(root)', unknownKey === undefined ? issue.message : 'unknown key');
  }
  return deepFreeze(result.data);
}

function readYaml(path: string): Tree {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError('config', `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  let parsed: unknown;
  try {
    parsed = parseYaml(text);
  } catch (error) {
    throw new ConfigError('config', `${path} is not valid YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ConfigError('config', `${path} must hold a mapping of keys`);
  }
  return withoutEmptyKeys(parsed as Tree);
}

/** A key left empty in YAML (`metrics:` with only comments under it) means "use the defaults". */
function withoutEmptyKeys(tree: Tree): Tree {
  return Object.fromEntries(
    Object.entries(tree)
      .filter(([, value]) => value !== null)
      .map(([key, value]) => [key, isTree(value) ? withoutEmptyKeys(value) : value]),
  );
}

function envValue(binding: ConfigBinding, env: NodeJS.ProcessEnv): unknown {
  const direct = env[binding.env];
  if (direct !== undefined && direct !== '') return binding.secret || binding.text ? direct : scalar(direct);
  const file = binding.secret ? env[`${binding.env}_FILE`] : undefined;
  if (file !== undefined && file !== '') return readSecretFile(`${binding.env}_FILE`, file);
  return undefined;
}

function credentialValue(binding: ConfigBinding, env: NodeJS.ProcessEnv): unknown {
  const directory = env.CREDENTIALS_DIRECTORY;
  if (binding.credential === undefined || directory === undefined || directory === '') return undefined;
  const file = join(directory, binding.credential);
  if (!existsSync(file)) return undefined;
  const value = readSecretFile(binding.path, file);
  return binding.secret || binding.text ? value : scalar(value);
}

function dropYamlSecretFile(tree: Tree, path: string): void {
  const keys = path.split('.');
  const leaf = keys.pop()!;
  const parent = keys.reduce<unknown>((node, key) => (isTree(node) ? node[key] : undefined), tree);
  if (isTree(parent)) delete parent[`${leaf}_file`];
}

/** A relative `<key>_file` in YAML is read relative to the YAML file, as operators expect. */
function resolveYamlSecretFile(tree: Tree, path: string, yamlPath: string | undefined): void {
  const keys = path.split('.');
  const leaf = keys.pop()!;
  const parent = keys.reduce<unknown>((node, key) => (isTree(node) ? node[key] : undefined), tree);
  if (!isTree(parent) || parent[`${leaf}_file`] === undefined) return;
  const file = parent[`${leaf}_file`];
  if (typeof file !== 'string') throw new ConfigError(`${path}_file`, 'must be a file path');
  parent[leaf] = readSecretFile(`${path}_file`, yamlPath === undefined ? file : resolve(dirname(yamlPath), file));
  delete parent[`${leaf}_file`];
}

function readSecretFile(key: string, file: string): string {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch (error) {
    throw new ConfigError(key, `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
}

/** Environment and flag values are strings; read them as YAML scalars so "7117" is a number and "true" a boolean. */
function scalar(raw: string): unknown {
  try {
    const value: unknown = parseYaml(raw);
    return value === null || typeof value === 'object' ? raw : value;
  } catch {
    return raw;
  }
}

function setPath(tree: Tree, path: string, value: unknown): void {
  const keys = path.split('.');
  const leaf = keys.pop()!;
  let node = tree;
  for (const key of keys) {
    if (!isTree(node[key])) node[key] = {};
    node = node[key] as Tree;
  }
  node[leaf] = value;
}

function isTree(value: unknown): value is Tree {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
