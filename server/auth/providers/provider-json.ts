import { ProviderRefusedError } from './provider-client.js';

/** GETs a provider API resource with the user's access token; anything but 200 with JSON is a refusal. */
export async function providerJson(url: string, accessToken: string, accept = 'application/json'): Promise<unknown> {
  const response = await fetch(url, {
    headers: { authorization: `Bearer ${accessToken}`, accept, 'user-agent': 'dbmon' },
    signal: AbortSignal.timeout(10_000),
  });
  if (response.status !== 200) {
    await response.body?.cancel();
    throw new ProviderRefusedError(`${url} answered ${response.status}`);
  }
  return response.json();
}
