import { z } from 'zod';
import { nestValues } from './metric-catalog.js';

type Node = { [key: string]: Node | z.ZodType };

/**
 * Dotted places and their schemas as nested objects: `a.b` and `a.c` give `{ a: { b, c } }`.
 * An object whose every place may be absent may be absent itself.
 */
export function nestedShape(entries: readonly (readonly [string, z.ZodType])[]): z.ZodRawShape {
  return shapeOf(nestValues(entries) as Node);
}

function shapeOf(node: Node): z.ZodRawShape {
  return Object.fromEntries(Object.entries(node).map(([key, child]) => [key, child instanceof z.ZodType ? child : objectOf(shapeOf(child))]));
}

function objectOf(shape: z.ZodRawShape): z.ZodType {
  const object = z.object(shape);
  return Object.values(shape).every(acceptsAbsence) ? object.optional() : object;
}

function acceptsAbsence(schema: z.core.$ZodType): boolean {
  return z.safeParse(schema, undefined).success;
}
