import { providerNames, type ProviderKind } from '../auth/providers/provider-kinds.js';

/** The organization a sign-in page was opened for, and the providers it offers. */
export interface ProviderChoices {
  slug: string;
  providers: readonly ProviderKind[];
}

/** "Sign in with ..." for each provider the organization enabled; nothing when it enabled none. */
export function ProviderButtons({ choices, next }: { choices: ProviderChoices | undefined; next?: string | undefined }) {
  if (choices === undefined || choices.providers.length === 0) return null;
  return (
    <nav class="provider-buttons" aria-label="Other ways to sign in">
      <ul>
        {choices.providers.map((provider) => (
          <li key={provider}>
            <a class="button" href={`/orgs/${encodeURIComponent(choices.slug)}/auth/${provider}${next === undefined ? '' : `?${new URLSearchParams({ next })}`}`}>
              {`Sign in with ${providerNames[provider]}`}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
