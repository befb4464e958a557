import { randomBase62 } from './base62.js';

export type IdPrefix =
  | 'db' | 'query' | 'alert' | 'rule' | 'opt' | 'key' | 'usr' | 'org' | 'sess' | 'wh' | 'evt' | 'agent' | 'sa' | 'job' | 'aud' | 'app' | 'authz' | 'grant' | 'idn';

const idLength = 22;

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(idLength)}`;
}

/** True when `value` has the shape of an id with this prefix; anything else can never name a resource. */
export function isId(prefix: IdPrefix, value: string): boolean {
  return value.length === prefix.length + 1 + idLength && value.startsWith(`${prefix}_`) && /^[0-9A-Za-z]+$/.test(value.slice(prefix.length + 1));
}
