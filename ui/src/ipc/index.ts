// The window's IPC: the generated command functions (`commands.generated.ts`, from the Rust
// command table) behind one object, `ipc`, that components reach through `IpcContext` (tests
// hand them a fake). What a command needs beyond its call lives here: the live channels, the
// batch acknowledgements, bytes, file drops. Errors come back as `IpcFailure` (`client.ts`).
// Adding or changing a command: src-tauri/crates/agentdesk-protocol/src/ipc.rs (module doc).
import { Channel } from "@tauri-apps/api/core";
import * as commands from "./commands.generated";
import type { OfferedFile } from "./commands.generated";
import type { AppInfo } from "../generated/AppInfo";
import type { Approval } from "../generated/Approval";
import type { ApprovalFile } from "../generated/ApprovalFile";
import type { ApprovalState } from "../generated/ApprovalState";
import type { Attachment } from "../generated/Attachment";
import type { AttachmentRef } from "../generated/AttachmentRef";
import type { DecidedBy } from "../generated/DecidedBy";
import type { UserDecision } from "../generated/UserDecision";
import type { Engine } from "../generated/Engine";
import type { EngineCapabilities } from "../generated/EngineCapabilities";
import type { ErrorCode } from "../generated/ErrorCode";
import type { IpcError } from "../generated/IpcError";
import type { ItemBody } from "../generated/ItemBody";
import type { LiveBatch } from "../generated/LiveBatch";
import type { LiveOp } from "../generated/LiveOp";
import type { Profile } from "../generated/Profile";
import type { Question } from "../generated/Question";
import type { Run } from "../generated/Run";
import type { RunStatus } from "../generated/RunStatus";
import type { FolderCount } from "../generated/FolderCount";
import type { HistorySettings } from "../generated/HistorySettings";
import type { HistorySourceInfo } from "../generated/HistorySourceInfo";
import type { HistoryStatus } from "../generated/HistoryStatus";
import type { EngineRateLimits } from "../generated/EngineRateLimits";
import type { ImportProgress } from "../generated/ImportProgress";
import type { ImportReport } from "../generated/ImportReport";
import type { SourceReport } from "../generated/SourceReport";
import type { Session } from "../generated/Session";
import type { SessionActivity } from "../generated/SessionActivity";
import type { TimelineItem } from "../generated/TimelineItem";
import type { TimelinePage } from "../generated/TimelinePage";
import type { Workspace } from "../generated/Workspace";
import type { NewWorktree } from "../generated/NewWorktree";

export type {
  UserDecision,
  AppInfo,
  Approval,
  ApprovalFile,
  ApprovalState,
  Attachment,
  AttachmentRef,
  DecidedBy,
  Engine,
  EngineCapabilities,
  ErrorCode,
  FolderCount,
  HistorySettings,
  HistorySourceInfo,
  HistoryStatus,
  ImportProgress,
  ImportReport,
  IpcError,
  ItemBody,
  LiveBatch,
  LiveOp,
  Profile,
  Question,
  Run,
  RunStatus,
  Session,
  SessionActivity,
  SourceReport,
  TimelineItem,
  TimelinePage,
  Workspace,
};

export type { OfferedFile };

/** OS files dragged over / dropped on the window, reduced to what the UI needs. */
export type FileDropEvent = { type: "enter" | "over" | "leave" } | { type: "drop"; files: OfferedFile[] };

/** The event Rust hands dropped files to the page on (commands/attachments.rs). */
const FILES_DROPPED = "attachments:dropped";

export { errorOf, IpcFailure, ProfileFailure, toIpcError, toProfileError } from "./client";

function toBytes(data: unknown): Uint8Array {
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  if (Array.isArray(data)) return Uint8Array.from(data as number[]);
  return new Uint8Array();
}

export const ipc = {
  appInfo: commands.appInfo,
  listWorkspaces: commands.listWorkspaces,
  addWorkspace: (path: string, name?: string) => commands.addWorkspace(path, name),
  removeWorkspace: commands.removeWorkspace,
  pickFolder: commands.pickFolder,
  /** The folders in `path` on an SSH host (its home folder for `null`). */
  listRemoteFolders: (host: string, path: string | null) => commands.listRemoteFolders(host, path),

  listSessions: (workspaceId: string, archived = false) => commands.listSessions(workspaceId, archived),
  /** With no profile, the workspace's default one; a workspace without profiles needs `engine`.
   *  `worktree`: in a new git worktree of the workspace's repository. */
  createSession: (workspaceId: string, profileId: string | null = null, engine: Engine | null = null, worktree: NewWorktree | null = null) =>
    commands.createSession(workspaceId, profileId, engine, worktree),
  /**
   * Opens the live stream of a session; `onBatch` gets a `reset` first. The shell sends the
   * next batch only once `shown` is called for the last one (or after a second): a page that
   * is busy drawing gets fewer, larger batches instead of a backlog of small ones.
   */
  openSession: async (sessionId: string, onBatch: (batch: LiveBatch, shown?: () => void) => void) => {
    const channel = new Channel<LiveBatch>();
    channel.onmessage = (batch) =>
      onBatch(batch, () => {
        // A view closed meanwhile has nothing to pace: the shell ignores the ack.
        commands.liveAck(sessionId, channel.id, batch.seq).catch(() => {});
      });
    await commands.openSession(sessionId, channel);
  },
  closeSession: commands.closeSession,
  /** The whole output of a tool item shown cut, in the system's app for text files. */
  openToolOutput: (sessionId: string, itemId: string) => commands.openToolOutput(sessionId, itemId),
  loadTimeline: commands.loadTimeline,
  loadTimelineNewer: commands.loadTimelineNewer,
  /** The plan the session's agent last reported (null: none). */
  sessionPlan: commands.sessionPlan,
  /** The session folder's files best matching a query (the composer's `@`). */
  findFiles: commands.findFiles,
  /** The session's tokens and cost over all its runs. */
  sessionUsage: commands.sessionUsage,
  /** The commands the composer's `/` offers (the session's engine's, asked of it). */
  listCommands: commands.listCommands,
  sendMessage: commands.sendMessage,
  interruptRun: commands.interruptRun,
  decideApproval: commands.decideApproval,
  answerQuestion: (approvalId: string, answers: Record<string, string[]>) => commands.answerQuestion(approvalId, answers),
  /** A dropped or picked file, by the token its drop or pick issued (used up). */
  importAttachment: commands.importAttachmentToken,
  importAttachmentBytes: commands.importAttachmentBytes,
  /** The clipboard's image, read by the shell (WebKitGTK pastes only text into the page). */
  importClipboardImage: commands.importClipboardImage,
  readAttachment: async (sha256: string) => toBytes(await commands.readAttachment(sha256)),
  /** The native picker; the chosen files as tokens (empty when cancelled). */
  pickFiles: commands.pickFiles,
  /** Rejects with a `ProfileFailure` (an `IpcFailure` with the field errors). */
  listProfiles: commands.listProfiles,
  setSessionProfile: commands.setSessionProfile,
  /** The model and effort the session runs from its next run on (`null`: its profile's). */
  setSessionModel: commands.setSessionModel,
  /** The models an engine offers (with a saved profile's endpoint and options). */
  listModels: commands.listModels,
  listPendingApprovals: commands.listPendingApprovals,
  /** What an engine can do (the engine crate's declaration): cards offer only that. */
  engineCapabilities: commands.engineCapabilities,
  /** Every engine the app can run (the engine crate's registry). */
  listEngines: commands.listEngines,
  /** App-wide activity snapshots (running / queued / waiting per session). */
  watchActivity: async (onActivity: (snapshot: SessionActivity[]) => void) => {
    const channel = new Channel<SessionActivity[]>();
    channel.onmessage = onActivity;
    await commands.watchActivity(channel);
  },
  /** A notification's body was clicked: open that request's card (`null`: the Approvals view). */
  watchNotificationClicks: async (onOpen: (approval: Approval | null) => void) => {
    const channel = new Channel<Approval | null>();
    channel.onmessage = onOpen;
    await commands.watchNotificationClicks(channel);
  },
  /** The window was closed while a run is active and nobody answered yet: ask. */
  watchCloseRequests: async (onAsk: () => void) => {
    const channel = new Channel<null>();
    channel.onmessage = () => onAsk();
    await commands.watchCloseRequests(channel);
  },
  /** The engines' own histories (sessions run in a terminal), imported in the background and
   *  kept current while the app runs: the status now and on every change. */
  watchHistories: async (onStatus: (s: HistoryStatus) => void) => {
    const channel = new Channel<HistoryStatus>();
    channel.onmessage = onStatus;
    await commands.watchHistories(channel);
  },
  /** Each engine's latest rate limits (the status bar): now and on every change. */
  watchRateLimits: async (onLimits: (limits: EngineRateLimits[]) => void) => {
    const channel = new Channel<EngineRateLimits[]>();
    channel.onmessage = onLimits;
    await commands.watchRateLimits(channel);
  },
  /** Scan the histories again now (only what changed is read). */
  rescanHistories: commands.rescanHistories,
  setHistorySettings: commands.setHistorySettings,
  /** The answer (stored): keep running in the tray (hides the window) or quit. */
  keepRunningInTray: commands.keepRunningInTray,
  openExternal: commands.openExternal,
  /**
   * OS files dragged over / dropped on the window. The webview's own event only drives the
   * overlay (its paths are ignored); the dropped files arrive from Rust as tokens.
   * Resolves to an unlisten function.
   */
  onFileDrop: async (handler: (event: FileDropEvent) => void): Promise<() => void> => {
    const [{ getCurrentWebview }, { listen }] = await Promise.all([loadWebviewApi(), import("@tauri-apps/api/event")]);
    const offDrag = await getCurrentWebview().onDragDropEvent((e) => {
      const type = e.payload.type;
      handler({ type: type === "drop" ? "leave" : type });
    });
    const offDrop = await listen<OfferedFile[]>(FILES_DROPPED, (e) => handler({ type: "drop", files: e.payload }));
    return () => {
      offDrag();
      offDrop();
    };
  },
};

export type Ipc = typeof ipc;

// Tauri's window/webview API (~100 KB of the first script's 280) serves only file drops on an
// open session: its own chunk, imported once (see the WebKit note on chunks in App.tsx).
let webviewApi: Promise<typeof import("@tauri-apps/api/webview")> | undefined;
function loadWebviewApi() {
  return (webviewApi ??= import("@tauri-apps/api/webview"));
}
