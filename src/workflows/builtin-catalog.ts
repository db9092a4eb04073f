/**
 * The built-in workflows' names and one-line descriptions, in `sssf list` order, without loading a
 * workflow module: what `sssf --help` lists in a repo with no workflows of its own. A test holds it
 * equal to the workflows themselves (`builtinWorkflows`).
 */
export const BUILTIN_WORKFLOW_CATALOG: readonly { name: string; description: string }[] = [
  { name: "prompt", description: "One agent answers one prompt with a GenericOutput envelope" },
  { name: "scout", description: "Explore the code a request touches and report findings (read-only)" },
  { name: "plan", description: "Write a plan for the request and commit it" },
  { name: "build", description: "Implement the request and commit the change" },
  { name: "quality", description: "Run every quality suite and let the builder fix what fails" },
  { name: "plan-build", description: "Plan the request, implement the plan, commit" },
  {
    name: "build-test",
    description: "Implement the request, run the tests, let the builder fix failures, commit",
  },
  {
    name: "build-review",
    description: "Implement the request, have it reviewed, revise until approved, commit",
  },
  {
    name: "plan-build-test",
    description: "Plan, implement the plan, run the tests with bounded fixes, commit",
  },
  {
    name: "plan-build-test-quality",
    description: "Plan, implement, test, then run every quality suite with bounded fixes, commit",
  },
  { name: "document", description: "Write or update documentation and commit the write-up" },
  {
    name: "simple-sdlc",
    description: "Plan, build, test with fixes, review with revisions, document; three commits",
  },
  {
    name: "sdd",
    description: "Spec-driven development: explore, propose, spec ∥ design, tasks, apply, verify, archive",
  },
];
