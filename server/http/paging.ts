import type { Context } from 'koa';
import { z } from 'zod';

export const pagingQuery = {
  page: z.coerce.number().int().min(1).default(1).describe('1-based page number'),
  per_page: z.coerce.number().int().min(1).max(100).default(20).describe('Records per page, 1..100'),
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

/** The list envelope, with a GitHub-style Link header for first, prev, next and last. */
export function listEnvelope<T>(ctx: Context, data: T[], total: number, paging: Paging) {
  const lastPage = Math.max(1, Math.ceil(total / paging.per_page));
  const links: string[] = [];
  const link = (page: number, rel: string) => {
    const url = new URL(ctx.originalUrl, 'http://placeholder');
    url.searchParams.set('page', String(page));
    url.searchParams.set('per_page', String(paging.per_page));
    links.push(`<${ctx.protocol}://${ctx.host}${url.pathname}${url.search}>; rel="${rel}"`);
  };
  if (paging.page < lastPage) link(paging.page + 1, 'next');
  if (paging.page > 1) link(Math.min(paging.page - 1, lastPage), 'prev');
  link(1, 'first');
  link(lastPage, 'last');
  ctx.set('Link', links.join(', '));
  return { data, pagination: { total, page: paging.page, per_page: paging.per_page } };
}
