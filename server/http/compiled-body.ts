import { Ajv } from 'ajv';
import { z } from 'zod';
import { parseInput } from './validate.js';

/**
 * The parser of a hot request body: its zod schema compiled, through the JSON Schema zod derives
 * from it, into an ajv function that accepts a valid body about twenty times faster than zod
 * parses it. Only for schemas whose output is their input (no defaults, transforms or coercion),
 * since a valid body is used as it came; zod still words every refusal, so errors read as they do
 * on every other route.
 */
export function compiledBodyParser<S extends z.ZodType>(schema: S): (input: unknown) => z.output<S> {
  // zod's date-time pattern is in the JSON Schema; the format keyword adds nothing to it.
  const ajv = new Ajv({ strict: true, formats: { 'date-time': true } });
  const accepts = ajv.compile(z.toJSONSchema(schema, { io: 'input', target: 'draft-7' }));
  return (input) => (accepts(input) ? (input as z.output<S>) : parseInput(schema, input));
}
