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
  /** A filled-in example, validated against `schema` when a call first uses the type. */
  readonly example: z.input<S>;
}

/** The parsed envelope of an output type. */
export type EnvelopeOf<T extends OutputType> = z.output<T["schema"]>;

/**
 * Declares an output type. Its example is checked against the schema the first time a call uses the
 * type ({@link assertExampleMatches}), not here: sssf defines every built-in type at start-up, and
 * checking them all cost each run about 10 ms.
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
  return Object.freeze({ name, schema, example });
}

const checkedTypes = new WeakSet<OutputType>();

/**
 * Throws TypeError when `type`'s example does not match its schema (once per type; later calls return
 * at once). The engine calls it before a call renders its prompt, so a bad example fails before any
 * send.
 */
export function assertExampleMatches(type: OutputType): void {
  if (checkedTypes.has(type)) return;
  const checked = type.schema.safeParse(type.example);
  if (!checked.success) {
    throw new TypeError(
      `example of output type ${type.name} does not match its schema: ${checked.error.message}`,
    );
  }
  checkedTypes.add(type);
}

/**
 * An output type whose schema is built the first time it is read: zod builds a schema's parts as it is
 * declared, and sssf declares every built-in type when its envelope module loads, though a run uses one
 * or two of them (building them all cost each run about 8 ms of its start). The same as
 * {@link defineOutputType} otherwise.
 */
export function lazyOutputType<S extends z.ZodObject>(
  name: string,
  build: () => S,
  example: z.input<NoInfer<S>>,
): OutputType<S> {
  let schema: S | undefined;
  return Object.freeze({
    name,
    get schema(): S {
      schema ??= build();
      return schema;
    },
    example,
  });
}
