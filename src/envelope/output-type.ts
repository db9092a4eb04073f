import type { z } from "zod";

/**
 * A declared envelope type: the zod schema that validates the agent's reply, and the example shown
 * in the prompt's `## Report` section. Both come from one definition, so the type, the prompt example
 * and the call site cannot drift apart.
 */
export interface OutputType<S extends z.ZodObject = z.ZodObject> {
  /** Wire name shown to the agent and stored in the trace (`PlanOutput`). */
  readonly name: string;
  readonly schema: S;
  /** A filled-in example, validated against `schema` when the type is defined. */
  readonly example: z.input<S>;
}

/** The parsed envelope of an output type. */
export type EnvelopeOf<T extends OutputType> = z.output<T["schema"]>;

/**
 * Declares an output type.
 *
 * @example
 * const TicketOutput = defineOutputType("TicketOutput", EnvelopeBase.extend({ ticket: z.string() }), {
 *   status: "success", summary: "Filed the ticket", ticket: "ABC-1",
 * });
 */
export function defineOutputType<S extends z.ZodObject>(
  name: string,
  schema: S,
  example: z.input<S>,
): OutputType<S> {
  const checked = schema.safeParse(example);
  if (!checked.success) {
    throw new TypeError(`example of output type ${name} does not match its schema: ${checked.error.message}`);
  }
  return Object.freeze({ name, schema, example });
}
