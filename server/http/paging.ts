import { Buffer } from 'node:buffer';
import type { Context } from 'koa';
import { z } from 'zod';

/**
 * An integer query parameter, written in decimal digits only: z.coerce.number() would also take
 * '1e1', '0x10', ' 10' and an empty value.
 */
export function integerQueryParam(range: z.ZodNumber) {
  return z.preprocess((value) => (typeof value === 'string' && /^[0-9]{1,15}$/.test(value) ? Number(value) : value), range.int());
}

export const pagingQuery = {
  page: integerQueryParam(z.number().min(1)).default(1).describe('1-based page number'),
  per_page: integerQueryParam(z.number().min(1).max(100)).default(20).describe('Records per page, 1..100'),
};

export interface Paging {
  page: number;
  per_page: number;
}

export function pageWindow(paging: Paging): { limit: number; offset: number } {
  return { limit: paging.per_page, offset: (paging.page - 1) * paging.per_page };
}

export function paginationSchema() {
  return z.object({ total: z.number().int(), page: z.number().int(), per_page: z.number().int() });
}

/** A list response serialized to its bytes (what a cache keeps), and the total its Link header needs. */
export interface SerializedList {
  body: Buffer;
  total: number;
}

/** The list envelope as UTF-8 JSON. */
export function serializeList<T>(data: T[], total: number, paging: Paging): SerializedList {
  const envelope = { data, pagination: { total, page: paging.page, per_page: paging.per_page } };
  return { body: Buffer.from(JSON.stringify(envelope)), total };
}

/** Answers with the list envelope and a GitHub-style Link header for next, prev, first and last. */
export function sendList<T>(ctx: Context, data: T[], total: number, paging: Paging): void {
  sendSerializedList(ctx, serializeList(data, total, paging), paging);
}

/** Link headers kept per list by what they are made of; at this many for one list they start over (Host is the client's to vary). */
const maxLinksPerList = 100;
const linksByList = new WeakMap<SerializedList, Map<string, string>>();

/** sendList for a list serialized beforehand (a cached one): its Link header too is made once per URL it is asked for by. */
export function sendSerializedList(ctx: Context, list: SerializedList, paging: Paging): void {
  const { protocol, host, path, querystring } = ctx;
  const key = `${protocol}\n${host}\n${path}\n${querystring}\n${paging.per_page}\n${paging.page}`;
  let links = linksByList.get(list);
  if (links === undefined) linksByList.set(list, (links = new Map()));
  let link = links.get(key);
  if (link === undefined) {
    link = linkHeader(protocol, host, path, querystring, list.total, paging);
    if (links.size >= maxLinksPerList) links.clear();
    links.set(key, link);
  }
  ctx.set('Link', link);
  ctx.type = 'application/json';
  ctx.body = list.body;
}

function linkHeader(protocol: string, host: string, path: string, querystring: string, total: number, paging: Paging): string {
  const lastPage = Math.max(1, Math.ceil(total / paging.per_page));
  const kept = querystring
    .split('&')
    .filter((pair) => pair !== '' && !pair.startsWith('page=') && !pair.startsWith('per_page='))
    .map((pair) => `${pair}&`)
    .join('');
  const base = `${protocol}://${host}${path}?${kept}per_page=${paging.per_page}&page=`;
  const links: string[] = [];
  if (paging.page < lastPage) links.push(`<${base}${paging.page + 1}>; rel="next"`);
  if (paging.page > 1) links.push(`<${base}${Math.min(paging.page - 1, lastPage)}>; rel="prev"`);
  links.push(`<${base}1>; rel="first"`, `<${base}${lastPage}>; rel="last"`);
  return links.join(', ');
}
