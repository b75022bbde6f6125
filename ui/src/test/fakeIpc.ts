// An in-memory stand-in for the Rust side, for component tests. Every command is a vi.fn
// that tests can inspect or override.
import { vi } from "vitest";
import type { EngineInfo } from "../generated/EngineInfo";
import type { Plan } from "../generated/Plan";
import type { Approval, Attachment, Ipc, Profile, Run, Session } from "../ipc";

export function run(over: Partial<Run> = {}): Run {
  return {
    id: "r1",
    sessionId: "s1",
    seq: 1,
    status: "completed",
    prompt: "hello",
    profileId: null,
    model: null,
    stopReason: null,
    error: null,
    createdAt: 1_700_000_000_000,
    startedAt: 1_700_000_000_000,
    endedAt: 1_700_000_005_000,
    ...over,
  };
}

export function session(over: Partial<Session> = {}): Session {
  return {
    id: "s1",
    workspaceId: "w1",
    profileId: null,
    title: "Fix the build",
    engine: "codex",
    engineSessionId: null,
    origin: "app",
    worktree: null,
    branch: null,
    baseBranch: null,
    model: null,
    effort: null,
    createdAt: 1,
    updatedAt: 1,
    archivedAt: null,
    ...over,
  };
}

const CAPS = {
  editedInput: false,
  denyMessage: false,
  denyAndStop: true,
  questions: true,
  cost: false,
  sessionGrants: false,
  residentServer: false,
  midRunSettings: false,
};

/** The registry as the shell lists it (names, programs). */
export const ENGINES: EngineInfo[] = [
  {
    engine: "codex",
    displayName: "Codex",
    capabilities: { ...CAPS, sessionGrants: true, residentServer: true },
    programs: [{ name: "codex", displayName: "Codex", installCommand: "npm install -g @openai/codex" }],
    commandFromProfile: false,
  },
  {
    engine: "claude",
    displayName: "Claude Code",
    capabilities: { ...CAPS, editedInput: true, denyMessage: true, cost: true, midRunSettings: true },
    programs: [{ name: "claude", displayName: "Claude Code", installCommand: "npm install -g @anthropic-ai/claude-code" }],
    commandFromProfile: false,
  },
  {
    engine: "acp",
    displayName: "ACP agent",
    capabilities: { ...CAPS, questions: false },
    programs: [
      { name: "opencode", displayName: "opencode", installCommand: "npm install -g opencode-ai" },
      { name: "gemini", displayName: "Gemini CLI", installCommand: "npm install -g @google/gemini-cli" },
    ],
    commandFromProfile: true,
  },
];

// Fields the Rust side may add while the UI is written: spread (not excess-checked).
const profileExtras = { secretEnv: [] as string[] };

export function profile(over: Partial<Profile> = {}): Profile {
  return {
    ...profileExtras,
    id: "p1",
    workspaceId: "w1",
    isDefault: true,
    createdAt: 1,
    updatedAt: 1,
    name: "default",
    engine: "codex",
    model: null,
    baseUrl: null,
    apiKeyEnv: null,
    permissionMode: "ask",
    allowedTools: [],
    deniedTools: [],
    systemPrompt: null,
    extraDirs: [],
    env: {},
    approvalRules: [],
    approvalTimeoutSecs: null,
    engineOptions: {},
    mcpServers: [],
    ...over,
  };
}

export function attachment(name: string, over: Partial<Attachment> = {}): Attachment {
  const image = /\.(png|jpe?g|gif|webp)$/i.test(name);
  return {
    sha256: `sha-${name}`,
    mime: image ? "image/png" : "text/plain",
    kind: image ? "image" : "file",
    size: 10,
    name,
    path: `/data/attachments/sha-${name}`,
    ...over,
  };
}

export function approval(over: Partial<Approval> = {}): Approval {
  return {
    id: "a1",
    sessionId: "s1",
    runId: "r1",
    itemId: "r1:tool1",
    engineRequestId: "req1",
    kind: "command",
    request: { tool: null, command: "rm -rf build", cwd: "/repo", files: [], reason: "clean build", questions: [], detail: null },
    suggestions: null,
    state: "pending",
    decidedBy: null,
    decision: null,
    createdAt: 1_700_000_000_000,
    deadlineAt: null,
    decidedAt: null,
    ...over,
  };
}

export function fakeIpc(over: Partial<Ipc> = {}): Ipc {
  const base: Ipc = {
    appInfo: vi.fn(async () => ({ version: "0.0.0", dataDir: "/d", databasePath: "/d/db", logDir: "/d/logs", startupError: null })),
    listWorkspaces: vi.fn(async () => []),
    addWorkspace: vi.fn(async (path: string) => ({ id: path, name: path, path, host: null, createdAt: 1 })),
    listRemoteFolders: vi.fn(async (host: string, path: string | null) => ({ host, path: path ?? "/home/me", parent: "/", folders: [], truncated: false, repository: false })),

    removeWorkspace: vi.fn(async () => null),
    pickFolder: vi.fn(async () => null),
    listSessions: vi.fn(async () => []),
    createSession: vi.fn(async (workspaceId: string) => session({ id: "new", workspaceId, title: "" })),
    openSession: vi.fn(async () => {}),
    closeSession: vi.fn(async () => null),
    openToolOutput: vi.fn(async () => null),
    loadTimeline: vi.fn(async () => ({ items: [], before: null })),
    loadTimelineNewer: vi.fn(async () => ({ items: [], before: null })),
    sessionPlan: vi.fn(async (): Promise<Plan | null> => null),
    findFiles: vi.fn(async (): Promise<string[]> => []),
    sessionUsage: vi.fn(async () => ({ input: 0, cached: 0, output: 0, reasoning: 0, costUsd: null, runs: 0 })),
    listCommands: vi.fn(async () => ({ commands: [], unavailable: null })),
    sendMessage: vi.fn(async (sessionId: string, text: string) => run({ sessionId, prompt: text, status: "running" })),
    interruptRun: vi.fn(async () => null),
    decideApproval: vi.fn(async (approvalId: string) => approval({ id: approvalId, state: "approved_once", decidedBy: "user" })),
    answerQuestion: vi.fn(async (approvalId: string) => approval({ id: approvalId, kind: "question", state: "answered", decidedBy: "user" })),
    importAttachment: vi.fn(async (token: string) => attachment(token)),
    importAttachmentBytes: vi.fn(async (_bytes: Uint8Array, name: string) => attachment(name)),
    importClipboardImage: vi.fn(async () => attachment("pasted-image.png")),
    readAttachment: vi.fn(async () => new Uint8Array([137, 80, 78, 71])),
    pickFiles: vi.fn(async () => []),
    listProfiles: vi.fn(async () => [profile()]),
    setSessionProfile: vi.fn(async (sessionId: string, profileId: string) => session({ id: sessionId, profileId })),
    setSessionModel: vi.fn(async (sessionId: string, model?: string | null, effort?: string | null) => session({ id: sessionId, model: model ?? null, effort: effort ?? null })),
    listModels: vi.fn(async () => ({ models: [], unavailable: "This engine lists no models." })),
    listPendingApprovals: vi.fn(async () => []),
    engineCapabilities: vi.fn(async () => ({
      editedInput: true,
      denyMessage: true,
      denyAndStop: true,
      questions: true,
      cost: true,
      sessionGrants: true,
      residentServer: false,
      midRunSettings: true,
    })),
    listEngines: vi.fn(async () => ENGINES),
    watchActivity: vi.fn(async () => {}),
    watchNotificationClicks: vi.fn(async () => {}),
    watchCloseRequests: vi.fn(async () => {}),
    watchHistories: vi.fn(async () => {}),
    watchRateLimits: vi.fn(async () => {}),
    rescanHistories: vi.fn(async () => null),
    setHistorySettings: vi.fn(async () => null),
    keepRunningInTray: vi.fn(async () => null),
    openExternal: vi.fn(async () => null),
    onFileDrop: vi.fn(async () => () => {}),
  };
  return { ...base, ...over };
}
