import { chatMessages, messageText, type PiWorld } from "../runtimes/pi/pi-world.js";

/** Two pi agents in a row, ALPHA then BETA (the resume and cluster tests with real pi). */
export const PAIR = `import { defineWorkflow, GenericOutput } from "sssf";
export default defineWorkflow({
  name: "pair", description: "Two pi agents", agents: ["first", "second"],
  async run(run, request) {
    const one = await run.agent("one", { owner: "first", description: "First" }, (phase) =>
      phase.call({ outputType: GenericOutput, prompt: "ALPHA " + request }));
    const two = await run.agent("two", { owner: "second", description: "Second" }, (phase) =>
      phase.call({ outputType: GenericOutput, prompt: "BETA after " + one.summary }));
    return run.finish({ accepted: true, reason: two.summary });
  },
});
`;

/** Chat requests the fake model got whose user text contains `marker`. */
export function asked(w: PiWorld, marker: string): number {
  return w
    .chats()
    .filter((entry) =>
      chatMessages(entry).some((message) => message.role === "user" && messageText(message).includes(marker)),
    ).length;
}
