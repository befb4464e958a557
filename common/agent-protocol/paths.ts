/** The agent protocol's endpoints; `{id}` as in the OpenAPI document. */
export const agentPaths = {
  assignments: '/v1/agent/assignments',
  samples: '/v1/agent/samples',
  jobs: '/v1/agent/jobs',
  jobResult: '/v1/agent/jobs/{id}/result',
} as const;

/** The path an agent reports a job's result to. */
export function jobResultPath(jobId: string): string {
  return agentPaths.jobResult.replace('{id}', encodeURIComponent(jobId));
}
