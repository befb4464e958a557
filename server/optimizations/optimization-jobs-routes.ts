import { jobReceipt, jobResult } from '../../common/agent-protocol/job-results.js';
import { agentJobList } from '../../common/agent-protocol/optimization-jobs.js';
import { agentPaths } from '../../common/agent-protocol/paths.js';
import type { AgentsService } from '../agents/agents-service.js';
import { agentAccess } from '../agents/agent-access.js';
import { identityOf } from '../agents/agents-routes.js';
import { defineRoute, type RouteDefinition } from '../http/route.js';
import { errorBody, errorResponses } from '../openapi/error-responses.js';
import type { OptimizationJobsService } from './optimization-jobs-service.js';
import { optimizationIdParams } from './optimizations-schema.js';

const tag = 'Agent protocol';

export function optimizationJobsRoutes(agents: AgentsService, jobs: OptimizationJobsService, now: () => Date): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get',
      path: agentPaths.jobs,
      operationId: 'leaseAgentJobs',
      summary: 'Lease the optimization jobs (analyze, apply) of the databases this agent monitors, with their connections (agent keys only)',
      description:
        'A leased job is not handed out again until its lease runs out: 10 min for analysis (then handed out again, three ' +
        'attempts in all), 24 h for apply (then the optimization fails: a build may have half happened, so it is never re-run blindly).',
      tag,
      // Leasing changes state, and a key that cannot report results must not take jobs.
      auth: agentAccess('write'),
      responses: { 200: { description: 'The leased jobs; none is an empty list', schema: agentJobList }, ...errorResponses },
      handler: (ctx, { principal }) => {
        const agent = agents.identify(principal, identityOf(ctx), now());
        ctx.set('Cache-Control', 'no-store');
        ctx.body = { jobs: jobs.lease(agent, now()) };
      },
    }),
    defineRoute({
      method: 'post',
      path: agentPaths.jobResult,
      operationId: 'reportAgentJobResult',
      summary: 'Report the result of a leased job; a repeated report is acknowledged and changes nothing',
      description:
        'A change of where or as whom the database is reached (PUT /v1/databases/{id} changing type, host, port, database, ' +
        'username, ssl or agent_id) cancels its open jobs: the result of one leased before is refused with 409 ' +
        '`connection_changed` and must not be sent again, as is a 404 (the lease is gone) or a 400.',
      tag,
      auth: agentAccess('write'),
      params: optimizationIdParams,
      body: jobResult,
      responses: {
        200: { description: 'Recorded', schema: jobReceipt },
        ...errorResponses,
        409: { description: 'The database connection changed after the job was leased (code `connection_changed`); the result is not recorded', schema: errorBody },
      },
      handler: (ctx, { params, body, principal }) => {
        const agent = agents.identify(principal, identityOf(ctx), now());
        ctx.body = jobs.report(agent, params.id, body, now());
      },
    }),
  ];
}
