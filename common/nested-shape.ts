import { z } from 'zod';
import { nestValues } from './metric-catalog.js';

type Node = { [key: string]: Node | z.ZodType };

/** Dotted places and their schemas as nested objects: `a.b` and `a.c` give `{ a: { b, c } }`. */
export function nestedShape(entries: readonly (readonly [string, z.ZodType])[]): z.ZodRawShape {
  return shapeOf(nestValues(entries) as Node);
}

function shapeOf(node: Node): z.ZodRawShape {
  return Object.fromEntries(Object.entries(node).map(([key, child]) => [key, child instanceof z.ZodType ? child : z.object(shapeOf(child))]));
}
