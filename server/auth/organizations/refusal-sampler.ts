/** Actors tracked; beyond, the least recently refused are forgotten (their next refusal is then recorded a little early). */
const maxTracked = 10_000;

/**
 * Which allowlist refusals get an audit entry: the first of each actor (user or service account) in
 * a window, so a flood from a stolen key, or a user signing in again and again from elsewhere, adds
 * at most one entry per actor per window however many requests it makes. Actors are stored
 * identities, so nobody can mint new ones to get past it.
 */
export class RefusalSampler {
  /** In order of last refusal, oldest first (a Map keeps insertion order). */
  readonly #windows = new Map<string, { startMs: number; unrecorded: number }>();

  constructor(readonly windowMs = 10 * 60_000) {}

  /** Undefined when this refusal goes unrecorded; otherwise how many refusals of the actor went unrecorded since its last entry. */
  take(actor: string, nowMs: number): number | undefined {
    const window = this.#windows.get(actor);
    this.#windows.delete(actor);
    if (window !== undefined && nowMs - window.startMs < this.windowMs) {
      window.unrecorded += 1;
      this.#windows.set(actor, window);
      return undefined;
    }
    this.#windows.set(actor, { startMs: nowMs, unrecorded: 0 });
    if (this.#windows.size > maxTracked) this.#windows.delete(this.#windows.keys().next().value!);
    return window?.unrecorded ?? 0;
  }
}
