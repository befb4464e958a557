import { z } from 'zod';
import type { Context } from 'koa';
import { agentAssignments } from '../../common/agent-protocol/assignments.js';
import { agentIdentityOf, type AgentIdentity } from '../../common/agent-protocol/identity-headers.js';
import { agentPaths } from '../../common/agent-protocol/paths.js';
import { defineRoute, type RouteDefinition } from '../http/route.js';
import { pageWindow, paginationSchema, pagingQuery, sendList } from '../http/paging.js';
import { errorResponses } from '../openapi/error-responses.js';
import { agentAccess } from './agent-access.js';
import { presentAgent } from './agent-presenter.js';
import type { AgentsService } from './agents-service.js';

const agentRecord = z
  .object({
    id: z.string(),
    name: z.string(),
    hostname: z.string().nullable(),
    version: z.string().nullable(),
    spool_dropped_total: z.number().int(),
    spool_batches: z.number().int().nullable().describe("Batches waiting in the agent's spool, as it last reported; null until it reports them"),
    spool_oldest_batch_at: z
      .string()
      .nullable()
      .describe("When the oldest of them was spooled, in the server's clock (receipt time minus the age the agent reported); null when none waits"),
    last_seen_at: z.string(),
    created_at: z.string(),
  })
  .meta({ id: 'Agent' });

export function agentsRoutes(agents: AgentsService, now: () => Date): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/agents',
      operationId: 'listAgents',
      summary: 'List the remote agents of the organization (they appear on their first call)',
      tag: 'Agents',
      auth: { scope: 'databases', access: 'read' },
      query: z.strictObject(pagingQuery),
      responses: {
        200: { description: 'A page of agents', schema: z.object({ data: z.array(agentRecord), pagination: paginationSchema() }) },
        ...errorResponses,
      },
      handler: (ctx, { query, principal }) => {
        const window = pageWindow(query);
        const { rows, total } = agents.list(principal.orgId, window.limit, window.offset);
        sendList(ctx, rows.map(presentAgent), total, query);
      },
    }),
    defineRoute({
      method: 'get',
      path: agentPaths.assignments,
      operationId: 'getAgentAssignments',
      summary: 'The databases this agent collects, with decrypted connection settings (agent keys only)',
      tag: 'Agent protocol',
      auth: agentAccess('read'),
      responses: { 200: { description: 'Assignments', schema: agentAssignments }, ...errorResponses },
      handler: (ctx, { principal }) => {
        const agent = agents.identify(principal, identityOf(ctx), now());
        ctx.set('Cache-Control', 'no-store');
        ctx.body = agents.assignments(agent.id);
      },
    }),
  ];
}

/** The hostname and version an agent states in its headers (ignored when malformed). */
export function identityOf(ctx: Context): AgentIdentity {
  return agentIdentityOf((name) => ctx.get(name));
}
