/**
 * Replies of the hostile classes the door's grammar settles (docs/envelopes-and-gates.md), each with
 * what its correction must name: shared by the exec-agent and the real-CLI tests.
 */
import { envelopeJson } from "./sandbox.js";

const manyKeys = Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`note_${i}`, `line ${i}`]));

/** The JSON classes: each reply, and what the correction must name. */
export const JSON_DOOR_CLASSES: { name: string; reply: string; named: RegExp }[] = [
  {
    name: "a final report with more than 256 keys after a success template",
    reply: `Template:\n${envelopeJson({ summary: "template" })}\nMine:\n${JSON.stringify({ ...manyKeys, status: "fail", summary: "the build broke", artifacts: [] })}`,
    named: /`status`: is ambiguous: 2 reports give it as "success" and "fail"/,
  },
  {
    name: "duplicate status keys, the last one success",
    reply: '{"status": "fail", "summary": "tests fail", "artifacts": [], "status": "success"}',
    named: /gives the key "status" twice/,
  },
  {
    name: "an escaped key repeating status",
    reply: '{"status": "fail", "summary": "tests fail", "artifacts": [], "st\\u0061tus": "success"}',
    named: /gives the key "status" twice/,
  },
  {
    name: "a status key in other case",
    reply: '{"Status": "fail", "summary": "tests fail", "artifacts": [], "status": "success"}',
    named: /is given more than once \("Status" and "status"\)/,
  },
  {
    name: "a single-quoted Python dict in prose",
    reply: "All done: {'status': 'success', 'summary': 'done', 'artifacts': [], 'ok': True}",
    named: /is not JSON: its keys are in single quotes/,
  },
  {
    name: "a success template in a fenced block after a real failure report",
    reply: `My report: {"status": "fail", "summary": "the migration fails", "artifacts": []}\n\nThe template was:\n\`\`\`json\n${envelopeJson({ summary: "template" })}\n\`\`\``,
    named: /`status`: is ambiguous: 2 reports give it as "fail" and "success"/,
  },
];
