// The only module that talks to Rust. Every command goes through `call`, which turns
// whatever Tauri rejects with into an `IpcError` ({ code, message }).
import { Channel, invoke, type InvokeArgs, type InvokeOptions } from "@tauri-apps/api/core";
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
import type { Session } from "../generated/Session";
import type { SessionActivity } from "../generated/SessionActivity";
import type { TimelineItem } from "../generated/TimelineItem";
import type { TimelinePage } from "../generated/TimelinePage";
import type { Workspace } from "../generated/Workspace";

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
  TimelineItem,
  TimelinePage,
  Workspace,
};

/**
 * A file the OS handed over (dropped on the window, chosen in the picker). The page never
 * learns or sends its path: it imports it by this single-use token (Rust keeps the path).
 */
export type OfferedFile = { token: string; name: string; size: number | null };

/** OS files dragged over / dropped on the window, reduced to what the UI needs. */
export type FileDropEvent = { type: "enter" | "over" | "leave" } | { type: "drop"; files: OfferedFile[] };

/** The event Rust hands dropped files to the page on (commands/attachments.rs). */
const FILES_DROPPED = "attachments:dropped";

// The codes the UI knows. `Partial` so a code Rust adds never breaks the typecheck (it reads
// as `internal` until listed here); a listed code that Rust removed does fail it.
const KNOWN_CODES = {
  invalid_input: true,
  not_found: true,
  conflict: true,
  engine_missing: true,
  engine_not_logged_in: true,
  engine_version_unsupported: true,
  engine_failed: true,
  timed_out: true,
  shutting_down: true,
  busy: true,
  storage_corrupt: true,
  storage_full: true,
  storage_read_only: true,
  storage: true,
  internal: true,
} satisfies Partial<Record<ErrorCode, true>>;

function isErrorCode(code: string): code is ErrorCode {
  return Object.prototype.hasOwnProperty.call(KNOWN_CODES, code);
}

export function toIpcError(raw: unknown): IpcError {
  if (raw && typeof raw === "object" && "code" in raw && "message" in raw) {
    const { code, message } = raw as { code: unknown; message: unknown };
    if (typeof code === "string" && isErrorCode(code) && typeof message === "string") {
      return { code, message };
    }
  }
  if (raw instanceof Error) return { code: "internal", message: raw.message };
  if (typeof raw === "string") return { code: "internal", message: raw };
  return { code: "internal", message: "unexpected error from the app core" };
}

export class IpcFailure extends Error {
  readonly error: IpcError;
  constructor(error: IpcError) {
    super(error.message);
    this.name = "IpcFailure";
    this.error = error;
  }
}

/** The `IpcError` of anything a command threw. */
export function errorOf(e: unknown): IpcError {
  return e instanceof IpcFailure ? e.error : toIpcError(e);
}

async function call<T>(command: string, args?: InvokeArgs, options?: InvokeOptions): Promise<T> {
  try {
    return await invoke<T>(command, args, options);
  } catch (raw) {
    throw new IpcFailure(toIpcError(raw));
  }
}

function toBytes(data: unknown): Uint8Array {
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  if (Array.isArray(data)) return Uint8Array.from(data as number[]);
  return new Uint8Array();
}

export const ipc = {
  appInfo: () => call<AppInfo>("app_info"),
  listWorkspaces: () => call<Workspace[]>("list_workspaces"),
  addWorkspace: (path: string, name?: string) => call<Workspace>("add_workspace", { path, name: name ?? null }),
  removeWorkspace: (id: string) => call<null>("remove_workspace", { id }),
  pickFolder: () => call<string | null>("pick_folder"),

  listSessions: (workspaceId: string, archived = false) => call<Session[]>("list_sessions", { workspaceId, archived }),
  /** With no profile, the workspace's default one; a workspace without profiles needs `engine`. */
  createSession: (workspaceId: string, profileId: string | null = null, engine: Engine | null = null) =>
    call<Session>("create_session", { workspaceId, profileId, engine }),
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
        call<null>("live_ack", { sessionId, channel: channel.id, seq: batch.seq }).catch(() => {});
      });
    await call<null>("open_session", { sessionId, onBatch: channel });
  },
  closeSession: (sessionId: string) => call<null>("close_session", { sessionId }),
  loadTimeline: (sessionId: string, before: number | null, limit: number) =>
    call<TimelinePage>("load_timeline", { sessionId, before, limit }),
  sendMessage: (sessionId: string, text: string, attachments: AttachmentRef[]) =>
    call<Run>("send_message", { sessionId, text, attachments }),
  interruptRun: (runId: string) => call<null>("interrupt_run", { runId }),
  /** `stop` goes with a deny: deny and end the run. */
  decideApproval: (approvalId: string, decision: UserDecision, stop: boolean, message: string | null) =>
    call<Approval>("decide_approval", { approvalId, decision, stop, message }),
  answerQuestion: (approvalId: string, answers: Record<string, string[]>) =>
    call<Approval>("answer_question", { approvalId, answers }),
  /** A dropped or picked file, by the token its drop or pick issued (used up). */
  importAttachment: (token: string) => call<Attachment>("import_attachment_token", { token }),
  importAttachmentBytes: (bytes: Uint8Array, name: string) =>
    call<Attachment>("import_attachment_bytes", bytes, { headers: { "x-file-name": encodeURIComponent(name) } }),
  /** The clipboard's image, read by the shell (WebKitGTK pastes only text into the page). */
  importClipboardImage: () => call<Attachment>("import_clipboard_image"),
  readAttachment: async (sha256: string) => toBytes(await call<unknown>("read_attachment", { sha256 })),
  /** The native picker; the chosen files as tokens (empty when cancelled). */
  pickFiles: () => call<OfferedFile[]>("pick_files"),
  listProfiles: (workspaceId: string) => call<Profile[]>("list_profiles", { workspaceId }),
  setSessionProfile: (sessionId: string, profileId: string) =>
    call<Session>("set_session_profile", { sessionId, profileId }),
  listPendingApprovals: () => call<Approval[]>("list_pending_approvals"),
  /** What an engine can do (the engine crate's declaration): cards offer only that. */
  engineCapabilities: (engine: Engine) => call<EngineCapabilities>("engine_capabilities", { engine }),
  /** App-wide activity snapshots (running / queued / waiting per session). */
  watchActivity: async (onActivity: (snapshot: SessionActivity[]) => void) => {
    const channel = new Channel<SessionActivity[]>();
    channel.onmessage = onActivity;
    await call<null>("watch_activity", { onActivity: channel });
  },
  /** A notification's body was clicked: open that request's card (`null`: the Approvals view). */
  watchNotificationClicks: async (onOpen: (approval: Approval | null) => void) => {
    const channel = new Channel<Approval | null>();
    channel.onmessage = onOpen;
    await call<null>("watch_notification_clicks", { onOpen: channel });
  },
  /** The window was closed while a run is active and nobody answered yet: ask. */
  watchCloseRequests: async (onAsk: () => void) => {
    const channel = new Channel<null>();
    channel.onmessage = () => onAsk();
    await call<null>("watch_close_requests", { onAsk: channel });
  },
  /** The answer (stored): keep running in the tray (hides the window) or quit. */
  keepRunningInTray: (keep: boolean) => call<null>("keep_running_in_tray", { keep }),
  openExternal: (url: string) => call<null>("open_external", { url }),
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
