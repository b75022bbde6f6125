// Generated from src-tauri/crates/agentdesk-protocol/src/ipc.rs (the IPC command table).
// Do not edit: UPDATE_BINDINGS=1 cargo test -p agentdesk-protocol --test ipc_commands
/* eslint-disable */
import type { Channel } from "@tauri-apps/api/core";
import type { AppInfo } from "../generated/AppInfo";
import type { Approval } from "../generated/Approval";
import type { Attachment } from "../generated/Attachment";
import type { AttachmentRef } from "../generated/AttachmentRef";
import type { CommandCatalog } from "../generated/CommandCatalog";
import type { CompactReport } from "../generated/CompactReport";
import type { DataInfo } from "../generated/DataInfo";
import type { Engine } from "../generated/Engine";
import type { EngineAccount } from "../generated/EngineAccount";
import type { EngineCapabilities } from "../generated/EngineCapabilities";
import type { EngineHealth } from "../generated/EngineHealth";
import type { EngineInfo } from "../generated/EngineInfo";
import type { EngineLimits } from "../generated/EngineLimits";
import type { EngineRateLimits } from "../generated/EngineRateLimits";
import type { ExportFormat } from "../generated/ExportFormat";
import type { FileDiff } from "../generated/FileDiff";
import type { HistorySettings } from "../generated/HistorySettings";
import type { HistoryStatus } from "../generated/HistoryStatus";
import type { IpcError } from "../generated/IpcError";
import type { LiveBatch } from "../generated/LiveBatch";
import type { LoginRequest } from "../generated/LoginRequest";
import type { LoginStart } from "../generated/LoginStart";
import type { McpReport } from "../generated/McpReport";
import type { MergeOutcome } from "../generated/MergeOutcome";
import type { ModelCatalog } from "../generated/ModelCatalog";
import type { NewWorktree } from "../generated/NewWorktree";
import type { NotificationPrefs } from "../generated/NotificationPrefs";
import type { Plan } from "../generated/Plan";
import type { Profile } from "../generated/Profile";
import type { ProfileError } from "../generated/ProfileError";
import type { ProfileSpec } from "../generated/ProfileSpec";
import type { RemoteFolders } from "../generated/RemoteFolders";
import type { Run } from "../generated/Run";
import type { SearchHit } from "../generated/SearchHit";
import type { Session } from "../generated/Session";
import type { SessionActivity } from "../generated/SessionActivity";
import type { SessionFootprint } from "../generated/SessionFootprint";
import type { TimelinePage } from "../generated/TimelinePage";
import type { UiSettings } from "../generated/UiSettings";
import type { Usage } from "../generated/Usage";
import type { UserDecision } from "../generated/UserDecision";
import type { Workspace } from "../generated/Workspace";
import type { WorkspaceGit } from "../generated/WorkspaceGit";
import type { WorktreeRemoved } from "../generated/WorktreeRemoved";
import type { WorktreeStatus } from "../generated/WorktreeStatus";
import { invokeCommand } from "./client";

export type OfferedFile = { token: string, name: string, 
/**
 * The size when offered, if it is a file (only shown; the import checks it again).
 */
size: number | null, };

export type AppInfoArgs = Record<symbol, never>;

export type ListWorkspacesArgs = Record<symbol, never>;

export type AddWorkspaceArgs = { path: string, name: string | null, };

export type ListRemoteFoldersArgs = { host: string, path: string | null, };

export type RemoteEnginesHealthArgs = { host: string, checkLogin: boolean, };

export type RemoveWorkspaceArgs = { id: string, };

export type PickFolderArgs = Record<symbol, never>;

export type ListSessionsArgs = { workspaceId: string, archived: boolean, };

export type CreateSessionArgs = { workspaceId: string, profileId: string | null, engine: Engine | null, 
/**
 * Run it in a new git worktree of the workspace's repository.
 */
worktree: NewWorktree | null, };

export type OpenSessionArgs = { sessionId: string, onBatch: Channel<LiveBatch>, };

export type LiveAckArgs = { sessionId: string, channel: number, seq: number, };

export type CloseSessionArgs = { sessionId: string, };

export type WatchActivityArgs = { onActivity: Channel<Array<SessionActivity>>, };

export type LoadTimelineArgs = { sessionId: string, before: number | null, limit: number, };

export type LoadTimelineNewerArgs = { sessionId: string, after: number, limit: number, };

export type SessionPlanArgs = { sessionId: string, };

export type SetSessionModelArgs = { sessionId: string, model: string | null, effort: string | null, };

export type SessionUsageArgs = { sessionId: string, };

export type FindFilesArgs = { sessionId: string, query: string, };

export type ListCommandsArgs = { sessionId: string, };

export type SendMessageArgs = { sessionId: string, text: string, attachments: Array<AttachmentRef>, };

export type InterruptRunArgs = { runId: string, };

export type SetSessionProfileArgs = { sessionId: string, profileId: string, };

export type ListProfilesArgs = { workspaceId: string, };

export type ListModelsArgs = { workspaceId: string, engine: Engine, profileId: string | null, };

export type EngineAccountArgs = { engine: Engine, };

export type EngineLoginArgs = { engine: Engine, request: LoginRequest, };

export type EngineLoginWaitArgs = { loginId: string, };

export type EngineLoginCancelArgs = { loginId: string, };

export type EngineLogoutArgs = { engine: Engine, };

export type McpStatusArgs = { workspaceId: string, profileId: string, };

export type CreateProfileArgs = { workspaceId: string, spec: ProfileSpec, };

export type UpdateProfileArgs = { id: string, spec: ProfileSpec, };

export type DuplicateProfileArgs = { id: string, };

export type SetDefaultProfileArgs = { id: string, };

export type DeleteProfileArgs = { id: string, };

export type SearchMessagesArgs = { query: string, workspaceId: string | null, limit: number, };

export type RenameSessionArgs = { sessionId: string, title: string, };

export type ArchiveSessionArgs = { sessionId: string, archived: boolean, };

export type SessionFootprintArgs = { sessionId: string, };

export type DeleteSessionArgs = { sessionId: string, };

export type ExportSessionArgs = { sessionId: string, format: ExportFormat, };

export type DecideApprovalArgs = { approvalId: string, decision: UserDecision, stop: boolean, message: string | null, };

export type AnswerQuestionArgs = { approvalId: string, answers: { [key in string]: Array<string> }, };

export type ListPendingApprovalsArgs = Record<symbol, never>;

export type EngineCapabilitiesArgs = { engine: Engine, };

export type ListEnginesArgs = Record<symbol, never>;

export type ImportAttachmentTokenArgs = { token: string, };

export type ImportAttachmentBytesArgs = { fileName: string, };

export type ImportClipboardImageArgs = Record<symbol, never>;

export type ReadAttachmentArgs = { sha256: string, };

export type PickFilesArgs = Record<symbol, never>;

export type OpenExternalArgs = { url: string, };

export type WatchNotificationClicksArgs = { onOpen: Channel<Approval | null>, };

export type WatchCloseRequestsArgs = { onAsk: Channel<null>, };

export type KeepRunningInTrayArgs = { keep: boolean, };

export type WindowPaintedArgs = { navigationStart: number, scriptStart: number, firstPaint: number | null, };

export type EnginesHealthArgs = { checkLogin: boolean, };

export type SetEnginePathArgs = { program: string, path: string | null, };

export type PickEngineBinaryArgs = { program: string, };

export type GetUiSettingsArgs = Record<symbol, never>;

export type SetUiSettingsArgs = { settings: UiSettings, };

export type GetNotificationPrefsArgs = Record<symbol, never>;

export type SetNotificationPrefsArgs = { prefs: NotificationPrefs, };

export type DataInfoArgs = Record<symbol, never>;

export type OpenToolOutputArgs = { sessionId: string, itemId: string, };

export type EngineLimitsArgs = Record<symbol, never>;

export type SetEngineMemoryLimitArgs = { mb: number | null, };

export type CompactDatabaseArgs = Record<symbol, never>;

export type WatchHistoriesArgs = { onStatus: Channel<HistoryStatus>, };

export type WatchRateLimitsArgs = { onLimits: Channel<Array<EngineRateLimits>>, };

export type RescanHistoriesArgs = Record<symbol, never>;

export type SetHistorySettingsArgs = { settings: HistorySettings, };

export type WorkspaceGitArgs = { workspaceId: string, };

export type SetIsolateSessionsArgs = { workspaceId: string, on: boolean, };

export type WorktreeStatusArgs = { sessionId: string, };

export type WorktreeDiffArgs = { sessionId: string, path: string, oldPath: string | null, committed: boolean, };

export type WorktreeCommitArgs = { sessionId: string, message: string, files: Array<string>, };

export type WorktreeDiscardArgs = { sessionId: string, path: string, };

export type WorktreeMergeArgs = { sessionId: string, };

export type RemoveWorktreeArgs = { sessionId: string, force: boolean, };

export type RecreateWorktreeArgs = { sessionId: string, };

export type ForgetWorktreeArgs = { sessionId: string, };

export type OpenWorktreeFolderArgs = { sessionId: string, };

export type OpenDataFolderArgs = { which: "data" | "logs", };

export function appInfo(): Promise<AppInfo> {
  return invokeCommand<AppInfo>("app_info", "IpcError");
}

export function listWorkspaces(): Promise<Array<Workspace>> {
  return invokeCommand<Array<Workspace>>("list_workspaces", "IpcError");
}

/**
 * `path` is a folder here, or one on an SSH host as `[user@]host[:port]:/path` (checked
 * there: reachable, the folder exists).
 */
export function addWorkspace(path: AddWorkspaceArgs["path"], name?: AddWorkspaceArgs["name"]): Promise<Workspace> {
  return invokeCommand<Workspace>("add_workspace", "IpcError", { path, name: name ?? null });
}

/**
 * The folders in `path` on `host` (`[user@]host[:port]`, an alias of ~/.ssh/config
 * too); the home folder there when `path` is `null`.
 */
export function listRemoteFolders(host: ListRemoteFoldersArgs["host"], path?: ListRemoteFoldersArgs["path"]): Promise<RemoteFolders> {
  return invokeCommand<RemoteFolders>("list_remote_folders", "IpcError", { host, path: path ?? null });
}

/**
 * The engines on `host` as `doctor --workspace ssh://host/…` sees them: found on the
 * login shell's PATH, version, logged in (`checkLogin` starts each once there).
 */
export function remoteEnginesHealth(host: RemoteEnginesHealthArgs["host"], checkLogin: RemoteEnginesHealthArgs["checkLogin"]): Promise<Array<EngineHealth>> {
  return invokeCommand<Array<EngineHealth>>("remote_engines_health", "IpcError", { host, checkLogin });
}

export function removeWorkspace(id: RemoveWorkspaceArgs["id"]): Promise<null> {
  return invokeCommand<null>("remove_workspace", "IpcError", { id });
}

/**
 * The native folder picker; `null` when the user cancels.
 */
export function pickFolder(): Promise<string | null> {
  return invokeCommand<string | null>("pick_folder", "IpcError");
}

/**
 * A workspace's sessions, newest first.
 */
export function listSessions(workspaceId: ListSessionsArgs["workspaceId"], archived: ListSessionsArgs["archived"]): Promise<Array<Session>> {
  return invokeCommand<Array<Session>>("list_sessions", "IpcError", { workspaceId, archived });
}

/**
 * A new session; with no profile, the workspace's default one; with neither, `engine`
 * (a workspace without profiles runs the engine's own defaults).
 */
export function createSession(workspaceId: CreateSessionArgs["workspaceId"], profileId?: CreateSessionArgs["profileId"], engine?: CreateSessionArgs["engine"], worktree?: CreateSessionArgs["worktree"]): Promise<Session> {
  return invokeCommand<Session>("create_session", "IpcError", { workspaceId, profileId: profileId ?? null, engine: engine ?? null, worktree: worktree ?? null });
}

/**
 * Start streaming a session to `on_batch`: a reset first, then at most a batch a frame.
 */
export function openSession(sessionId: OpenSessionArgs["sessionId"], onBatch: OpenSessionArgs["onBatch"]): Promise<null> {
  return invokeCommand<null>("open_session", "IpcError", { sessionId, onBatch });
}

/**
 * The page applied and drew batch `seq` of the session's view on `channel` (its id): the
 * shell sends the next batch only after this (or after a second without it).
 */
export function liveAck(sessionId: LiveAckArgs["sessionId"], channel: LiveAckArgs["channel"], seq: LiveAckArgs["seq"]): Promise<null> {
  return invokeCommand<null>("live_ack", "IpcError", { sessionId, channel, seq });
}

/**
 * Stop streaming a session (the window closed its view).
 */
export function closeSession(sessionId: CloseSessionArgs["sessionId"]): Promise<null> {
  return invokeCommand<null>("close_session", "IpcError", { sessionId });
}

/**
 * Sidebar badges for every session: a snapshot each time a run starts or ends or an
 * approval is asked or decided.
 */
export function watchActivity(onActivity: WatchActivityArgs["onActivity"]): Promise<null> {
  return invokeCommand<null>("watch_activity", "IpcError", { onActivity });
}

/**
 * Older items: the page before `before` (from a reset or a previous page).
 */
export function loadTimeline(sessionId: LoadTimelineArgs["sessionId"], before: LoadTimelineArgs["before"], limit: LoadTimelineArgs["limit"]): Promise<TimelinePage> {
  return invokeCommand<TimelinePage>("load_timeline", "IpcError", { sessionId, before, limit });
}

/**
 * Newer items: the page from `after` on (a page's `after`; the timeline keeps a bounded
 * window of pages, so one scrolled back to the start and down again reloads them).
 */
export function loadTimelineNewer(sessionId: LoadTimelineNewerArgs["sessionId"], after: LoadTimelineNewerArgs["after"], limit: LoadTimelineNewerArgs["limit"]): Promise<TimelinePage> {
  return invokeCommand<TimelinePage>("load_timeline_newer", "IpcError", { sessionId, after, limit });
}

/**
 * The plan the session's agent last reported (its header shows the current step, even
 * when that item is older than the loaded page).
 */
export function sessionPlan(sessionId: SessionPlanArgs["sessionId"]): Promise<Plan | null> {
  return invokeCommand<Plan | null>("session_plan", "IpcError", { sessionId });
}

/**
 * The model and reasoning effort the session runs from its next run on, instead of its
 * profile's (`null`: the profile's).
 */
export function setSessionModel(sessionId: SetSessionModelArgs["sessionId"], model?: SetSessionModelArgs["model"], effort?: SetSessionModelArgs["effort"]): Promise<Session> {
  return invokeCommand<Session>("set_session_model", "IpcError", { sessionId, model: model ?? null, effort: effort ?? null });
}

/**
 * The session's tokens and cost over all its runs (the session header's total).
 */
export function sessionUsage(sessionId: SessionUsageArgs["sessionId"]): Promise<Usage> {
  return invokeCommand<Usage>("session_usage", "IpcError", { sessionId });
}

/**
 * The files of the session's folder best matching `query` (the composer's `@`): paths
 * relative to it, `.gitignore` respected, at most 50.
 */
export function findFiles(sessionId: FindFilesArgs["sessionId"], query: FindFilesArgs["query"]): Promise<Array<string>> {
  return invokeCommand<Array<string>>("find_files", "IpcError", { sessionId, query });
}

/**
 * The commands the composer's `/` offers (the session's engine's, asked of it).
 */
export function listCommands(sessionId: ListCommandsArgs["sessionId"]): Promise<CommandCatalog> {
  return invokeCommand<CommandCatalog>("list_commands", "IpcError", { sessionId });
}

/**
 * Send a message; the run is queued while another one of the session is active.
 */
export function sendMessage(sessionId: SendMessageArgs["sessionId"], text: SendMessageArgs["text"], attachments: SendMessageArgs["attachments"]): Promise<Run> {
  return invokeCommand<Run>("send_message", "IpcError", { sessionId, text, attachments });
}

/**
 * Running → interrupted; queued → cancelled.
 */
export function interruptRun(runId: InterruptRunArgs["runId"]): Promise<null> {
  return invokeCommand<null>("interrupt_run", "IpcError", { runId });
}

/**
 * The profile the session's next run uses.
 */
export function setSessionProfile(sessionId: SetSessionProfileArgs["sessionId"], profileId: SetSessionProfileArgs["profileId"]): Promise<Session> {
  return invokeCommand<Session>("set_session_profile", "IpcError", { sessionId, profileId });
}

/**
 * A workspace's profiles, secret values masked (`••••`, never sent). The session's
 * profile switcher and the profiles editor both read it.
 */
export function listProfiles(workspaceId: ListProfilesArgs["workspaceId"]): Promise<Array<Profile>> {
  return invokeCommand<Array<Profile>>("list_profiles", "ProfileError", { workspaceId });
}

/**
 * The models `engine` offers, asked of the engine itself: with a saved profile's engine
 * options and environment when `profile_id` names one of that engine (never a spec from
 * the window: a listing starts the engine), else with the engine's defaults.
 */
export function listModels(workspaceId: ListModelsArgs["workspaceId"], engine: ListModelsArgs["engine"], profileId?: ListModelsArgs["profileId"]): Promise<ModelCatalog> {
  return invokeCommand<ModelCatalog>("list_models", "IpcError", { workspaceId, engine, profileId: profileId ?? null });
}

/**
 * A saved profile's MCP servers as its engine reports them (state, tools), asked of the
 * engine started with the profile; disabled ones as such.
 * An engine's account as it reports it (started to ask), with the logins the app offers.
 */
export function engineAccount(engine: EngineAccountArgs["engine"]): Promise<EngineAccount> {
  return invokeCommand<EngineAccount>("engine_account", "IpcError", { engine });
}

/**
 * Start logging `engine` in (the settings' own home): done at once with an API key, else
 * the page to open and a login id to wait for.
 */
export function engineLogin(engine: EngineLoginArgs["engine"], request: EngineLoginArgs["request"]): Promise<LoginStart> {
  return invokeCommand<LoginStart>("engine_login", "IpcError", { engine, request });
}

/**
 * Wait for a started login to end (bounded): the account then.
 */
export function engineLoginWait(loginId: EngineLoginWaitArgs["loginId"]): Promise<EngineAccount> {
  return invokeCommand<EngineAccount>("engine_login_wait", "IpcError", { loginId });
}

/**
 * Give up a started login.
 */
export function engineLoginCancel(loginId: EngineLoginCancelArgs["loginId"]): Promise<null> {
  return invokeCommand<null>("engine_login_cancel", "IpcError", { loginId });
}

/**
 * Log `engine` out (it forgets its stored login): the account then.
 */
export function engineLogout(engine: EngineLogoutArgs["engine"]): Promise<EngineAccount> {
  return invokeCommand<EngineAccount>("engine_logout", "IpcError", { engine });
}

export function mcpStatus(workspaceId: McpStatusArgs["workspaceId"], profileId: McpStatusArgs["profileId"]): Promise<McpReport> {
  return invokeCommand<McpReport>("mcp_status", "IpcError", { workspaceId, profileId });
}

/**
 * A new profile (masked in the answer). A new endpoint is saved only once the user
 * confirmed it in a native dialog; a rejected spec answers with its field errors.
 */
export function createProfile(workspaceId: CreateProfileArgs["workspaceId"], spec: CreateProfileArgs["spec"]): Promise<Profile> {
  return invokeCommand<Profile>("create_profile", "ProfileError", { workspaceId, spec });
}

/**
 * A secret sent back as `••••` keeps its stored value.
 */
export function updateProfile(id: UpdateProfileArgs["id"], spec: UpdateProfileArgs["spec"]): Promise<Profile> {
  return invokeCommand<Profile>("update_profile", "ProfileError", { id, spec });
}

export function duplicateProfile(id: DuplicateProfileArgs["id"]): Promise<Profile> {
  return invokeCommand<Profile>("duplicate_profile", "ProfileError", { id });
}

export function setDefaultProfile(id: SetDefaultProfileArgs["id"]): Promise<null> {
  return invokeCommand<null>("set_default_profile", "ProfileError", { id });
}

/**
 * Sessions that used it keep their history and run with the engine's defaults.
 */
export function deleteProfile(id: DeleteProfileArgs["id"]): Promise<null> {
  return invokeCommand<null>("delete_profile", "ProfileError", { id });
}

/**
 * Messages matching `query`, best first (at most `limit`, 1..=100); `workspaceId` null
 * searches every workspace.
 */
export function searchMessages(query: SearchMessagesArgs["query"], workspaceId: SearchMessagesArgs["workspaceId"], limit: SearchMessagesArgs["limit"]): Promise<Array<SearchHit>> {
  return invokeCommand<Array<SearchHit>>("search_messages", "IpcError", { query, workspaceId, limit });
}

export function renameSession(sessionId: RenameSessionArgs["sessionId"], title: RenameSessionArgs["title"]): Promise<Session> {
  return invokeCommand<Session>("rename_session", "IpcError", { sessionId, title });
}

/**
 * Archive (hidden from the list unless "Show archived" is on) or unarchive.
 */
export function archiveSession(sessionId: ArchiveSessionArgs["sessionId"], archived: ArchiveSessionArgs["archived"]): Promise<Session> {
  return invokeCommand<Session>("archive_session", "IpcError", { sessionId, archived });
}

/**
 * What deleting the session would remove, for the confirm.
 */
export function sessionFootprint(sessionId: SessionFootprintArgs["sessionId"]): Promise<SessionFootprint> {
  return invokeCommand<SessionFootprint>("session_footprint", "IpcError", { sessionId });
}

export function deleteSession(sessionId: DeleteSessionArgs["sessionId"]): Promise<null> {
  return invokeCommand<null>("delete_session", "IpcError", { sessionId });
}

/**
 * Opens the native save dialog; the path written, or `null` when the user cancelled.
 */
export function exportSession(sessionId: ExportSessionArgs["sessionId"], format: ExportSessionArgs["format"]): Promise<string | null> {
  return invokeCommand<string | null>("export_session", "IpcError", { sessionId, format });
}

/**
 * Decide from a card; refused (`conflict`) when the request is no longer pending.
 * `stop` goes with a deny only: deny and end the run.
 */
export function decideApproval(approvalId: DecideApprovalArgs["approvalId"], decision: DecideApprovalArgs["decision"], stop: DecideApprovalArgs["stop"], message?: DecideApprovalArgs["message"]): Promise<Approval> {
  return invokeCommand<Approval>("decide_approval", "IpcError", { approvalId, decision, stop, message: message ?? null });
}

export function answerQuestion(approvalId: AnswerQuestionArgs["approvalId"], answers: AnswerQuestionArgs["answers"]): Promise<Approval> {
  return invokeCommand<Approval>("answer_question", "IpcError", { approvalId, answers });
}

/**
 * Every pending request across sessions (the Approvals view).
 */
export function listPendingApprovals(): Promise<Array<Approval>> {
  return invokeCommand<Array<Approval>>("list_pending_approvals", "IpcError");
}

/**
 * What an engine can do (the engine crate's declaration): cards offer only that.
 */
export function engineCapabilities(engine: EngineCapabilitiesArgs["engine"]): Promise<EngineCapabilities> {
  return invokeCommand<EngineCapabilities>("engine_capabilities", "IpcError", { engine });
}

/**
 * Every engine the app can run (the engine crate's registry), in the order the window
 * lists them.
 */
export function listEngines(): Promise<Array<EngineInfo>> {
  return invokeCommand<Array<EngineInfo>>("list_engines", "IpcError");
}

/**
 * A dropped or picked file, by the token its drop or pick issued (used up).
 */
export function importAttachmentToken(token: ImportAttachmentTokenArgs["token"]): Promise<Attachment> {
  return invokeCommand<Attachment>("import_attachment_token", "IpcError", { token });
}

/**
 * A pasted file: its bytes as the request body, its name in a header.
 */
export function importAttachmentBytes(body: Uint8Array, fileName: ImportAttachmentBytesArgs["fileName"]): Promise<Attachment> {
  return invokeCommand<Attachment>("import_attachment_bytes", "IpcError", body, { headers: { "x-file-name": encodeURIComponent(fileName) } });
}

/**
 * The clipboard's image, read by the shell (WebKitGTK pastes only text into the page).
 */
export function importClipboardImage(): Promise<Attachment> {
  return invokeCommand<Attachment>("import_clipboard_image", "IpcError");
}

/**
 * A stored attachment's bytes (image thumbnails).
 */
export function readAttachment(sha256: ReadAttachmentArgs["sha256"]): Promise<ArrayBuffer | number[]> {
  return invokeCommand<ArrayBuffer | number[]>("read_attachment", "IpcError", { sha256 });
}

/**
 * The native picker; the chosen files as tokens (empty when cancelled).
 */
export function pickFiles(): Promise<Array<OfferedFile>> {
  return invokeCommand<Array<OfferedFile>>("pick_files", "IpcError");
}

/**
 * A web or mail link from the agent's text, in the system browser (never in the app).
 */
export function openExternal(url: OpenExternalArgs["url"]): Promise<null> {
  return invokeCommand<null>("open_external", "IpcError", { url });
}

/**
 * A notification's body was clicked: that request (`null`: the Approvals view).
 */
export function watchNotificationClicks(onOpen: WatchNotificationClicksArgs["onOpen"]): Promise<null> {
  return invokeCommand<null>("watch_notification_clicks", "IpcError", { onOpen });
}

/**
 * The window was closed while a run is active and nobody answered yet: ask.
 */
export function watchCloseRequests(onAsk: WatchCloseRequestsArgs["onAsk"]): Promise<null> {
  return invokeCommand<null>("watch_close_requests", "IpcError", { onAsk });
}

/**
 * The answer (stored): keep running in the tray (hides the window) or quit.
 */
export function keepRunningInTray(keep: KeepRunningInTrayArgs["keep"]): Promise<null> {
  return invokeCommand<null>("keep_running_in_tray", "IpcError", { keep });
}

/**
 * The window's first paint, for the start-up figures the shell logs.
 */
export function windowPainted(navigationStart: WindowPaintedArgs["navigationStart"], scriptStart: WindowPaintedArgs["scriptStart"], firstPaint?: WindowPaintedArgs["firstPaint"]): Promise<null> {
  return invokeCommand<null>("window_painted", "IpcError", { navigationStart, scriptStart, firstPaint: firstPaint ?? null });
}

/**
 * Every engine as `agentdesk-cli doctor` sees it; `checkLogin` starts each once.
 */
export function enginesHealth(checkLogin: EnginesHealthArgs["checkLogin"]): Promise<Array<EngineHealth>> {
  return invokeCommand<Array<EngineHealth>>("engines_health", "IpcError", { checkLogin });
}

/**
 * Forget the executable chosen for an engine program (`codex`, `opencode`...; PATH
 * discovery again). `path` must be
 * empty: the window never names an executable.
 */
export function setEnginePath(program: SetEnginePathArgs["program"], path?: SetEnginePathArgs["path"]): Promise<null> {
  return invokeCommand<null>("set_engine_path", "IpcError", { program, path: path ?? null });
}

/**
 * The system's file picker, opened by the shell, which checks and stores the picked
 * executable; its path, or `null` when cancelled.
 */
export function pickEngineBinary(program: PickEngineBinaryArgs["program"]): Promise<string | null> {
  return invokeCommand<string | null>("pick_engine_binary", "IpcError", { program });
}

export function getUiSettings(): Promise<UiSettings> {
  return invokeCommand<UiSettings>("get_ui_settings", "IpcError");
}

export function setUiSettings(settings: SetUiSettingsArgs["settings"]): Promise<null> {
  return invokeCommand<null>("set_ui_settings", "IpcError", { settings });
}

export function getNotificationPrefs(): Promise<NotificationPrefs> {
  return invokeCommand<NotificationPrefs>("get_notification_prefs", "IpcError");
}

export function setNotificationPrefs(prefs: SetNotificationPrefsArgs["prefs"]): Promise<null> {
  return invokeCommand<null>("set_notification_prefs", "IpcError", { prefs });
}

export function dataInfo(): Promise<DataInfo> {
  return invokeCommand<DataInfo>("data_info", "IpcError");
}

/**
 * Open the whole output of a tool item the timeline shows cut (its head and tail) with
 * the system's app for text files. Only that session's output files: the page names an
 * item, never a path.
 */
export function openToolOutput(sessionId: OpenToolOutputArgs["sessionId"], itemId: OpenToolOutputArgs["itemId"]): Promise<null> {
  return invokeCommand<null>("open_tool_output", "IpcError", { sessionId, itemId });
}

/**
 * The engines' memory limit (Settings → Engines).
 */
export function engineLimits(): Promise<EngineLimits> {
  return invokeCommand<EngineLimits>("engine_limits", "IpcError");
}

/**
 * Set it (`null`: the default, `0`: never); engines start again with it at their next run.
 */
export function setEngineMemoryLimit(mb?: SetEngineMemoryLimitArgs["mb"]): Promise<EngineLimits> {
  return invokeCommand<EngineLimits>("set_engine_memory_limit", "IpcError", { mb: mb ?? null });
}

/**
 * "Compact database": rewrite the database without its free pages and remove the
 * attachment files nothing refers to. Refused (busy) while a run is active.
 */
export function compactDatabase(): Promise<CompactReport> {
  return invokeCommand<CompactReport>("compact_database", "IpcError");
}

/**
 * The sessions the engines ran in a terminal (their own histories), imported in the
 * background and kept current while the app runs: the status now and on every change
 * (a scan's progress, its report per source, a generation the sidebar re-reads on).
 */
export function watchHistories(onStatus: WatchHistoriesArgs["onStatus"]): Promise<null> {
  return invokeCommand<null>("watch_histories", "IpcError", { onStatus });
}

/**
 * Each engine's latest rate limits (the status bar), now and on every change.
 */
export function watchRateLimits(onLimits: WatchRateLimitsArgs["onLimits"]): Promise<null> {
  return invokeCommand<null>("watch_rate_limits", "IpcError", { onLimits });
}

/**
 * Scan the histories again now (only what changed is read).
 */
export function rescanHistories(): Promise<null> {
  return invokeCommand<null>("rescan_histories", "IpcError");
}

/**
 * Which sources are scanned, watched and shown; a source turned on is scanned at once.
 */
export function setHistorySettings(settings: SetHistorySettingsArgs["settings"]): Promise<null> {
  return invokeCommand<null>("set_history_settings", "IpcError", { settings });
}

/**
 * Whether the workspace can have sessions in worktrees (else why not), its branches,
 * its uncommitted files and its "Isolate new sessions in worktrees" setting.
 */
export function workspaceGit(workspaceId: WorkspaceGitArgs["workspaceId"]): Promise<WorkspaceGit> {
  return invokeCommand<WorkspaceGit>("workspace_git", "IpcError", { workspaceId });
}

export function setIsolateSessions(workspaceId: SetIsolateSessionsArgs["workspaceId"], on: SetIsolateSessionsArgs["on"]): Promise<null> {
  return invokeCommand<null>("set_isolate_sessions", "IpcError", { workspaceId, on });
}

/**
 * The session's worktree: its changes against the base, its commits.
 */
export function worktreeStatus(sessionId: WorktreeStatusArgs["sessionId"]): Promise<WorktreeStatus> {
  return invokeCommand<WorktreeStatus>("worktree_status", "IpcError", { sessionId });
}

export function worktreeDiff(sessionId: WorktreeDiffArgs["sessionId"], path: WorktreeDiffArgs["path"], oldPath: WorktreeDiffArgs["oldPath"], committed: WorktreeDiffArgs["committed"]): Promise<FileDiff> {
  return invokeCommand<FileDiff>("worktree_diff", "IpcError", { sessionId, path, oldPath, committed });
}

/**
 * Commit all uncommitted changes, or only `files`.
 */
export function worktreeCommit(sessionId: WorktreeCommitArgs["sessionId"], message: WorktreeCommitArgs["message"], files: WorktreeCommitArgs["files"]): Promise<WorktreeStatus> {
  return invokeCommand<WorktreeStatus>("worktree_commit", "IpcError", { sessionId, message, files });
}

export function worktreeDiscard(sessionId: WorktreeDiscardArgs["sessionId"], path: WorktreeDiscardArgs["path"]): Promise<WorktreeStatus> {
  return invokeCommand<WorktreeStatus>("worktree_discard", "IpcError", { sessionId, path });
}

/**
 * Merge the branch into its base; a conflict is `merge_conflict` naming the files.
 */
export function worktreeMerge(sessionId: WorktreeMergeArgs["sessionId"]): Promise<MergeOutcome> {
  return invokeCommand<MergeOutcome>("worktree_merge", "IpcError", { sessionId });
}

export function removeWorktree(sessionId: RemoveWorktreeArgs["sessionId"], force: RemoveWorktreeArgs["force"]): Promise<WorktreeRemoved> {
  return invokeCommand<WorktreeRemoved>("remove_worktree", "IpcError", { sessionId, force });
}

export function recreateWorktree(sessionId: RecreateWorktreeArgs["sessionId"]): Promise<WorktreeStatus> {
  return invokeCommand<WorktreeStatus>("recreate_worktree", "IpcError", { sessionId });
}

export function forgetWorktree(sessionId: ForgetWorktreeArgs["sessionId"]): Promise<Session> {
  return invokeCommand<Session>("forget_worktree", "IpcError", { sessionId });
}

/**
 * Open the session's worktree in the file manager (the folder comes from the store,
 * never from the page).
 */
export function openWorktreeFolder(sessionId: OpenWorktreeFolderArgs["sessionId"]): Promise<null> {
  return invokeCommand<null>("open_worktree_folder", "IpcError", { sessionId });
}

/**
 * Open the data or the log folder in the file manager (named, never a path).
 */
export function openDataFolder(which: OpenDataFolderArgs["which"]): Promise<null> {
  return invokeCommand<null>("open_data_folder", "IpcError", { which });
}

/** Every command, as `invoke` names it. */
export const COMMANDS = [
  "app_info",
  "list_workspaces",
  "add_workspace",
  "list_remote_folders",
  "remote_engines_health",
  "remove_workspace",
  "pick_folder",
  "list_sessions",
  "create_session",
  "open_session",
  "live_ack",
  "close_session",
  "watch_activity",
  "load_timeline",
  "load_timeline_newer",
  "session_plan",
  "set_session_model",
  "session_usage",
  "find_files",
  "list_commands",
  "send_message",
  "interrupt_run",
  "set_session_profile",
  "list_profiles",
  "list_models",
  "engine_account",
  "engine_login",
  "engine_login_wait",
  "engine_login_cancel",
  "engine_logout",
  "mcp_status",
  "create_profile",
  "update_profile",
  "duplicate_profile",
  "set_default_profile",
  "delete_profile",
  "search_messages",
  "rename_session",
  "archive_session",
  "session_footprint",
  "delete_session",
  "export_session",
  "decide_approval",
  "answer_question",
  "list_pending_approvals",
  "engine_capabilities",
  "list_engines",
  "import_attachment_token",
  "import_attachment_bytes",
  "import_clipboard_image",
  "read_attachment",
  "pick_files",
  "open_external",
  "watch_notification_clicks",
  "watch_close_requests",
  "keep_running_in_tray",
  "window_painted",
  "engines_health",
  "set_engine_path",
  "pick_engine_binary",
  "get_ui_settings",
  "set_ui_settings",
  "get_notification_prefs",
  "set_notification_prefs",
  "data_info",
  "open_tool_output",
  "engine_limits",
  "set_engine_memory_limit",
  "compact_database",
  "watch_histories",
  "watch_rate_limits",
  "rescan_histories",
  "set_history_settings",
  "workspace_git",
  "set_isolate_sessions",
  "worktree_status",
  "worktree_diff",
  "worktree_commit",
  "worktree_discard",
  "worktree_merge",
  "remove_worktree",
  "recreate_worktree",
  "forget_worktree",
  "open_worktree_folder",
  "open_data_folder",
] as const;

export type CommandName = (typeof COMMANDS)[number];

/** What each command rejects with (normalised by `ipc/client.ts`). */
export type CommandError = {
  app_info: IpcError;
  list_workspaces: IpcError;
  add_workspace: IpcError;
  list_remote_folders: IpcError;
  remote_engines_health: IpcError;
  remove_workspace: IpcError;
  pick_folder: IpcError;
  list_sessions: IpcError;
  create_session: IpcError;
  open_session: IpcError;
  live_ack: IpcError;
  close_session: IpcError;
  watch_activity: IpcError;
  load_timeline: IpcError;
  load_timeline_newer: IpcError;
  session_plan: IpcError;
  set_session_model: IpcError;
  session_usage: IpcError;
  find_files: IpcError;
  list_commands: IpcError;
  send_message: IpcError;
  interrupt_run: IpcError;
  set_session_profile: IpcError;
  list_profiles: ProfileError;
  list_models: IpcError;
  engine_account: IpcError;
  engine_login: IpcError;
  engine_login_wait: IpcError;
  engine_login_cancel: IpcError;
  engine_logout: IpcError;
  mcp_status: IpcError;
  create_profile: ProfileError;
  update_profile: ProfileError;
  duplicate_profile: ProfileError;
  set_default_profile: ProfileError;
  delete_profile: ProfileError;
  search_messages: IpcError;
  rename_session: IpcError;
  archive_session: IpcError;
  session_footprint: IpcError;
  delete_session: IpcError;
  export_session: IpcError;
  decide_approval: IpcError;
  answer_question: IpcError;
  list_pending_approvals: IpcError;
  engine_capabilities: IpcError;
  list_engines: IpcError;
  import_attachment_token: IpcError;
  import_attachment_bytes: IpcError;
  import_clipboard_image: IpcError;
  read_attachment: IpcError;
  pick_files: IpcError;
  open_external: IpcError;
  watch_notification_clicks: IpcError;
  watch_close_requests: IpcError;
  keep_running_in_tray: IpcError;
  window_painted: IpcError;
  engines_health: IpcError;
  set_engine_path: IpcError;
  pick_engine_binary: IpcError;
  get_ui_settings: IpcError;
  set_ui_settings: IpcError;
  get_notification_prefs: IpcError;
  set_notification_prefs: IpcError;
  data_info: IpcError;
  open_tool_output: IpcError;
  engine_limits: IpcError;
  set_engine_memory_limit: IpcError;
  compact_database: IpcError;
  watch_histories: IpcError;
  watch_rate_limits: IpcError;
  rescan_histories: IpcError;
  set_history_settings: IpcError;
  workspace_git: IpcError;
  set_isolate_sessions: IpcError;
  worktree_status: IpcError;
  worktree_diff: IpcError;
  worktree_commit: IpcError;
  worktree_discard: IpcError;
  worktree_merge: IpcError;
  remove_worktree: IpcError;
  recreate_worktree: IpcError;
  forget_worktree: IpcError;
  open_worktree_folder: IpcError;
  open_data_folder: IpcError;
};
