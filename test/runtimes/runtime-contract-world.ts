import type {
  AgentSendObserver,
  AgentSendRequest,
  AgentSendResult,
  AgentTimeouts,
  Runtime,
  ToolCall,
  Usage,
} from "../../src/runtimes/runtime.js";
import type { FakeScript, FakeUsage, LoggedRequest } from "../../src/testing/index.js";
import type { CliWorld } from "./cli-harness.js";
import type { WorktreeLayout } from "./worktree-layout.js";

/** A runtime's CLI world that builds send requests running its CLI (binary, model, test defaults). */
export interface ContractScene extends CliWorld {
  request(overrides?: Partial<AgentSendRequest>): AgentSendRequest;
}

/** How the model requests of a runtime's wire API read, so the shared cases can inspect them. */
export interface ContractWire<W extends ContractScene> {
  /** The generation requests the fake model received, oldest first. */
  requests(scene: W): LoggedRequest[];
  /** The user-role texts of a request, in order. */
  userTexts(request: LoggedRequest | undefined): string[];
  /** The system prompt (instructions) a request carries. */
  systemText(request: LoggedRequest | undefined): string;
  /** The names of the tools a request offers the model. */
  offeredTools(request: LoggedRequest | undefined): string[];
}

/** An observer recording everything a runtime reports during one send. */
export interface ContractObserver extends AgentSendObserver {
  pids: number[];
  /** The argv of every process started. */
  commands: string[][];
  toolCalls: ToolCall[];
  usages: Usage[];
  logs: string[];
}

/** A fresh `ContractObserver`. */
export function contractObserver(): ContractObserver {
  const recorded = { pids: [], commands: [], toolCalls: [], usages: [], logs: [] } as Pick<
    ContractObserver,
    "pids" | "commands" | "toolCalls" | "usages" | "logs"
  >;
  return {
    ...recorded,
    onProcessStart: (started) => {
      recorded.pids.push(started.pid);
      recorded.commands.push(started.command);
    },
    onToolCall: (call) => recorded.toolCalls.push(call),
    onUsage: (usage) => recorded.usages.push(usage),
    onLog: (message) => recorded.logs.push(message),
  };
}

/** One send of a contract case: what was asked, what came back, what the observer saw. */
export interface ContractSend {
  request: AgentSendRequest;
  result: AgentSendResult;
  observer: ContractObserver;
}

type Check<W, Args extends unknown[]> = (scene: W, ...args: Args) => void | Promise<void>;

/** The shared cases, by the key a world uses to tune or skip one. */
export type ContractCase =
  | "session"
  | "toolCall"
  | "handoffWrite"
  | "outsideWrite"
  | "boxedHandoffWrite"
  | "boxedOutsideWrite"
  | "usage"
  | "bigPrompt"
  | "toolsNone"
  | "hang"
  | "unknownModel";

/**
 * One CLI runtime as the shared contract suite sees it: how to open its world and read its model
 * requests, what it truly reports where runtimes differ (cost, context size, how it refuses a model),
 * and its own assertions per case (`expect` hooks run after the shared ones).
 */
export interface RuntimeContractWorld<W extends ContractScene> {
  /** The runtime's id in `BUILTIN_RUNTIME_IDS`; the coverage test finds the call by it. */
  id: string;
  runtime: Runtime;
  open(script?: FakeScript): Promise<W>;
  wire: ContractWire<W>;
  session?: {
    /** Fields of the first and the second send (a system prompt per send…). */
    first?: Partial<AgentSendRequest>;
    second?: Partial<AgentSendRequest>;
    /** Runs before the first send (repo files the runtime must keep out…). */
    before?(scene: W): void;
    expect?: Check<W, [ContractSend, ContractSend]>;
  };
  toolCall?: {
    /** The allowlist the send gets (default: the harness's read, bash, edit, write). */
    tools?: string[];
    expect?: Check<W, [ContractSend]>;
  };
  /** The write into `context_handoff/` from a worktree run (tools: `toolCall.tools`). */
  handoffWrite?: {
    expect?: Check<W, [ContractSend, WorktreeLayout]>;
  };
  /** The write outside both the worktree and `context_handoff/`, which the CLI must refuse. */
  outsideWrite?: {
    /** Checks of the CLI's own refusal (its message to the model…). */
    expect?: Check<W, [ContractSend, WorktreeLayout]>;
  };
  usage: {
    /** The scripted counts of the two sends (default `CONTRACT_USAGE`). */
    script?: readonly [FakeUsage, FakeUsage];
    /** The cost this runtime reports for a send with these counts; "positive" when its CLI prices it. */
    cost(counts: FakeUsage): number | "positive";
    /** The context size it reports after a send with these counts. */
    contextTokens(counts: FakeUsage): number;
    expect?: Check<W, [ContractSend, ContractSend]>;
  };
  bigPrompt?: {
    timeouts?: AgentTimeouts;
    expect?: Check<W, [ContractSend]>;
  };
  toolsNone?: {
    /** Fields the send gets besides `tools: []` (a model, a thinking level). */
    request?: Partial<AgentSendRequest>;
    expect?: Check<W, [ContractSend]>;
  };
  hang: {
    /** The idle limit must outlast the CLI's silent start-up on a loaded machine. */
    timeouts: AgentTimeouts;
    expect?: Check<W, [ContractSend]>;
  };
  unknownModel: {
    /** A model this runtime does not have (in its catalog or config: it refuses before starting). */
    model: string;
    /** Fields the send gets besides the model (another config home…). */
    request?(scene: W): Partial<AgentSendRequest>;
    expect?: Check<W, [ContractSend]>;
  };
  /** Cases this runtime truly cannot pass, each with the reason (registered as `it.skip`). */
  skip?: Partial<Record<ContractCase, string>>;
}

/** The scripted counts of the usage case's two sends. */
export const CONTRACT_USAGE: readonly [FakeUsage, FakeUsage] = [
  { input: 1000, output: 50, cacheRead: 200 },
  { input: 3000, output: 70, cacheRead: 400 },
];

/** The file the tool-call case's model writes. */
export const CONTRACT_FILE = { path: "notes/hello.md", content: "hello from the model\n" };

/** The file the handoff cases' model writes, relative to the handoff (or the outside) folder. */
export const HANDOFF_FILE = { path: "plan/handoff.md", content: "# Plan\n\nhanded over by the model\n" };

/** The `TURN-n` markers of the fake's echo reply. */
export const markersOf = (text: string): string[] => (JSON.parse(text) as { markers: string[] }).markers;
