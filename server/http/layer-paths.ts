import type { Layer } from '@koa/router';

/**
 * The paths some router layers answer: a set lookup for the layers without parameters (with a
 * sensitive, strict router they match their own path and nothing else) and a pattern test only for
 * the others, instead of every layer's pattern for every request.
 */
export class LayerPaths {
  readonly #exact: ReadonlySet<string>;
  readonly #patterns: readonly Layer[];

  constructor(layers: readonly Layer[]) {
    this.#exact = new Set(layers.filter((layer) => layer.paramNames.length === 0).map((layer) => String(layer.path)));
    this.#patterns = layers.filter((layer) => layer.paramNames.length > 0);
  }

  has(path: string): boolean {
    return this.#exact.has(path) || this.#patterns.some((layer) => layer.match(path));
  }
}
