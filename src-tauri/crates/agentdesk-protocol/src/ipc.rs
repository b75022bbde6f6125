//! The IPC command table: every command the window may call, its arguments, its answer and
//! its error, declared once. From this table come
//!
//! - the argument structs the Tauri shell's `#[tauri::command]` functions take
//!   (`Args<AddWorkspaceArgs>` in `src-tauri/src/commands/`) and the result type they return
//!   (`Reply<AddWorkspaceArgs>` = `Result<Workspace, IpcError>`): a shell command whose
//!   arguments or answer differ from the table does not compile. The shell's handler list
//!   is checked against [`COMMAND_NAMES`] at compile time too (both ways), and each argument
//!   struct refuses to be read for a command of another name;
//! - `ui/src/ipc/commands.generated.ts`: one typed async function per command, wrapping
//!   `invoke` with exactly the argument names Tauri expects, and the types of the arguments.
//!   A test (`tests/ipc_commands.rs`) fails when the committed file is stale; regenerate
//!   with `UPDATE_BINDINGS=1 cargo test -p agentdesk-protocol --test ipc_commands`.
//!
//! Why a `define_rpc!` table with ts-rs rather than tauri-specta: every UI type is already
//! exported with ts-rs (`ui/src/generated/`, checked by `tests/bindings.rs`); tauri-specta
//! needs `specta::Type` on every type that crosses (a second derive, a second set of
//! attributes, a second generated copy of each type) and puts the table in the shell crate,
//! which depends on tauri, so checking it means building webkit. Here the table lives in a
//! crate without tauri: `cargo test -p agentdesk-protocol` generates and checks the client.
//!
//! Live feeds take a [`Channel<T>`] argument: `Channel<LiveBatch>` in TypeScript (the
//! `@tauri-apps/api` class), the channel's id on the wire; the shell turns it into a
//! `tauri::ipc::Channel<T>` of the same `T` (`args.channel(&args.on_batch)?`).
//!
//! # Adding or changing a command
//!
//! 1. Here, in `define_rpc!` below: `name(NameArgs { field: Type, ... }) -> Result<Answer,
//!    Error>;` (`Error` is `IpcError`, or `ProfileError` when the window shows field errors;
//!    `, Raw` after it for a binary body whose string arguments travel as headers). Fields
//!    are snake_case here and camelCase on the wire and in TypeScript. A `u64`/`i64` field
//!    needs `#[ts(type = "number")]` (ts-rs would say `bigint`, which `invoke` never sends).
//!    Every type named must be exported to `ui/src/generated/` (`tests/bindings.rs`), or
//!    declared in this module and listed in [`typescript`]'s `local`.
//! 2. `UPDATE_BINDINGS=1 cargo test -p agentdesk-protocol --test ipc_commands` rewrites
//!    `ui/src/ipc/commands.generated.ts` (one function, `nameInCamelCase(field, ...)`).
//! 3. In the shell, `src-tauri/src/commands/<resource>.rs`: `#[tauri::command] pub async fn
//!    name(state: State<'_, AppState>, args: Args<NameArgs>) -> Reply<NameArgs>` (no `args`
//!    parameter when there are no fields), registered in `src-tauri/src/lib.rs`'s
//!    `table_handler!`. The build fails until the two agree: a renamed or removed entry is
//!    an unknown type in the shell, a changed field or answer a type error, a command
//!    registered but not in the table (or the reverse) a failed compile-time assertion.
//! 4. In the window, call the generated function, or put it behind the `ipc` object
//!    (`ui/src/ipc/index.ts`) or a feature module (`ui/src/ipc/{profiles,library,settings}.ts`)
//!    when components take it as an injectable dependency; `npm --prefix ui run typecheck`
//!    shows every call site a changed signature breaks.

use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;

use serde::{Deserialize, Deserializer, Serialize};
use ts_rs::{Config, TypeVisitor, TS};

use crate::capabilities::EngineCapabilities;
use crate::events::UserDecision;
use crate::ids::{ApprovalId, ProfileId, RunId, SessionId, WorkspaceId};
pub use crate::ipc_macro::{
    camel, percent_decode, raw_header, read_headers, read_json, Body, Command,
};
use crate::plan::Plan;
use crate::rate_limits::EngineRateLimits;
use crate::ui::{
    AppInfo, Approval, Attachment, AttachmentRef, CommandCatalog, CompactReport, DataInfo, Engine,
    EngineAccount, EngineHealth, EngineInfo, EngineLimits, ExportFormat, FileDiff, HistorySettings,
    HistoryStatus, IpcError, LiveBatch, LoginRequest, LoginStart, McpReport, MergeOutcome,
    ModelCatalog, NewWorktree, NotificationPrefs, Profile, ProfileError, ProfileSpec,
    RemoteFolders, Run, SearchHit, Session, SessionActivity, SessionFootprint, TimelinePage,
    UiSettings, Usage, Workspace, WorkspaceGit, WorktreeRemoved, WorktreeStatus,
};

/// A channel the page opened for a live feed (`new Channel<T>()` in TypeScript), as the
/// command receives it: the page serialises it as `__CHANNEL__:<id>`, kept here as sent. The
/// shell turns it into a `tauri::ipc::Channel<T>` (`JavaScriptChannelId::channel_on`).
pub struct Channel<T> {
    id: String,
    _message: PhantomData<fn() -> T>,
}

impl<T> Channel<T> {
    /// The channel as the page sent it (`__CHANNEL__:<id>`).
    pub fn id(&self) -> &str {
        &self.id
    }
}

impl<T> fmt::Debug for Channel<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Channel").field(&self.id).finish()
    }
}

impl<'de, T> Deserialize<'de> for Channel<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Self {
            id: String::deserialize(d)?,
            _message: PhantomData,
        })
    }
}

/// `Channel<T>` of `@tauri-apps/api/core` in TypeScript.
impl<T: TS> TS for Channel<T> {
    type WithoutGenerics = Channel<ts_rs::Dummy>;
    type OptionInnerType = Self;
    fn ident(_: &Config) -> String {
        "Channel".to_owned()
    }
    fn name(cfg: &Config) -> String {
        format!("Channel<{}>", T::name(cfg))
    }
    fn inline(cfg: &Config) -> String {
        Self::name(cfg)
    }
    fn visit_generics(v: &mut impl TypeVisitor)
    where
        Self: 'static,
    {
        T::visit_generics(v);
        v.visit::<T>();
    }
    fn visit_dependencies(v: &mut impl TypeVisitor)
    where
        Self: 'static,
    {
        T::visit_generics(v);
        v.visit::<T>();
    }
    // Named here so the writer imports it from `@tauri-apps/api/core`, not `../generated/`.
    fn output_path() -> Option<std::path::PathBuf> {
        Some("Channel.ts".into())
    }
}

/// A binary answer (`tauri::ipc::Response` in the shell): an `ArrayBuffer`, or an array of
/// numbers where the webview's IPC falls back to JSON.
pub struct Bytes;

impl TS for Bytes {
    type WithoutGenerics = Self;
    type OptionInnerType = Self;
    fn name(_: &Config) -> String {
        "ArrayBuffer | number[]".to_owned()
    }
    fn inline(cfg: &Config) -> String {
        Self::name(cfg)
    }
}

/// A file the OS handed over (dropped on the window, chosen in the picker), as the page
/// learns it: a single-use token and what to show, never its path (the shell keeps it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct OfferedFile {
    pub token: String,
    pub name: String,
    /// The size when offered, if it is a file (only shown; the import checks it again).
    #[ts(type = "number | null")]
    pub size: Option<u64>,
}

define_rpc! {
    // The app and its workspaces.
    app_info(AppInfoArgs {}) -> Result<AppInfo, IpcError>;
    list_workspaces(ListWorkspacesArgs {}) -> Result<Vec<Workspace>, IpcError>;
    /// `path` is a folder here, or one on an SSH host as `[user@]host[:port]:/path` (checked
    /// there: reachable, the folder exists).
    add_workspace(AddWorkspaceArgs { path: String, name: Option<String> }) -> Result<Workspace, IpcError>;
    /// The folders in `path` on `host` (`[user@]host[:port]`, an alias of ~/.ssh/config
    /// too); the home folder there when `path` is `null`.
    list_remote_folders(ListRemoteFoldersArgs { host: String, path: Option<String> }) -> Result<RemoteFolders, IpcError>;
    /// The engines on `host` as `doctor --workspace ssh://host/…` sees them: found on the
    /// login shell's PATH, version, logged in (`checkLogin` starts each once there).
    remote_engines_health(RemoteEnginesHealthArgs { host: String, check_login: bool }) -> Result<Vec<EngineHealth>, IpcError>;
    remove_workspace(RemoveWorkspaceArgs { id: WorkspaceId }) -> Result<(), IpcError>;
    /// The native folder picker; `null` when the user cancels.
    pick_folder(PickFolderArgs {}) -> Result<Option<String>, IpcError>;

    /// A workspace's sessions, newest first.
    list_sessions(ListSessionsArgs { workspace_id: WorkspaceId, archived: bool }) -> Result<Vec<Session>, IpcError>;
    /// A new session; with no profile, the workspace's default one; with neither, `engine`
    /// (a workspace without profiles runs the engine's own defaults).
    create_session(CreateSessionArgs {
        workspace_id: WorkspaceId,
        profile_id: Option<ProfileId>,
        engine: Option<Engine>,
        /// Run it in a new git worktree of the workspace's repository.
        worktree: Option<NewWorktree>,
    }) -> Result<Session, IpcError>;
    /// Start streaming a session to `on_batch`: a reset first, then at most a batch a frame.
    open_session(OpenSessionArgs { session_id: SessionId, on_batch: Channel<LiveBatch> }) -> Result<(), IpcError>;
    /// The page applied and drew batch `seq` of the session's view on `channel` (its id): the
    /// shell sends the next batch only after this (or after a second without it).
    live_ack(LiveAckArgs {
        session_id: SessionId,
        channel: u32,
        #[ts(type = "number")]
        seq: u64,
    }) -> Result<(), IpcError>;
    /// Stop streaming a session (the window closed its view).
    close_session(CloseSessionArgs { session_id: SessionId }) -> Result<(), IpcError>;
    /// Sidebar badges for every session: a snapshot each time a run starts or ends or an
    /// approval is asked or decided.
    watch_activity(WatchActivityArgs { on_activity: Channel<Vec<SessionActivity>> }) -> Result<(), IpcError>;
    /// Older items: the page before `before` (from a reset or a previous page).
    load_timeline(LoadTimelineArgs {
        session_id: SessionId,
        #[ts(type = "number | null")]
        before: Option<i64>,
        limit: u32,
    }) -> Result<TimelinePage, IpcError>;
    /// Newer items: the page from `after` on (a page's `after`; the timeline keeps a bounded
    /// window of pages, so one scrolled back to the start and down again reloads them).
    load_timeline_newer(LoadTimelineNewerArgs {
        session_id: SessionId,
        #[ts(type = "number")]
        after: i64,
        limit: u32,
    }) -> Result<TimelinePage, IpcError>;
    /// The plan the session's agent last reported (its header shows the current step, even
    /// when that item is older than the loaded page).
    session_plan(SessionPlanArgs { session_id: SessionId }) -> Result<Option<Plan>, IpcError>;
    /// The model and reasoning effort the session runs from its next run on, instead of its
    /// profile's (`null`: the profile's).
    set_session_model(SetSessionModelArgs { session_id: SessionId, model: Option<String>, effort: Option<String> }) -> Result<Session, IpcError>;
    /// The session's tokens and cost over all its runs (the session header's total).
    session_usage(SessionUsageArgs { session_id: SessionId }) -> Result<Usage, IpcError>;
    /// The files of the session's folder best matching `query` (the composer's `@`): paths
    /// relative to it, `.gitignore` respected, at most 50.
    find_files(FindFilesArgs { session_id: SessionId, query: String }) -> Result<Vec<String>, IpcError>;
    /// The commands the composer's `/` offers (the session's engine's, asked of it).
    list_commands(ListCommandsArgs { session_id: SessionId }) -> Result<CommandCatalog, IpcError>;
    /// Send a message; the run is queued while another one of the session is active.
    send_message(SendMessageArgs { session_id: SessionId, text: String, attachments: Vec<AttachmentRef> }) -> Result<Run, IpcError>;
    /// Running → interrupted; queued → cancelled.
    interrupt_run(InterruptRunArgs { run_id: RunId }) -> Result<(), IpcError>;
    /// The profile the session's next run uses.
    set_session_profile(SetSessionProfileArgs { session_id: SessionId, profile_id: ProfileId }) -> Result<Session, IpcError>;

    /// A workspace's profiles, secret values masked (`••••`, never sent). The session's
    /// profile switcher and the profiles editor both read it.
    list_profiles(ListProfilesArgs { workspace_id: WorkspaceId }) -> Result<Vec<Profile>, ProfileError>;
    /// The models `engine` offers, asked of the engine itself: with a saved profile's engine
    /// options and environment when `profile_id` names one of that engine (never a spec from
    /// the window: a listing starts the engine), else with the engine's defaults.
    list_models(ListModelsArgs { workspace_id: WorkspaceId, engine: Engine, profile_id: Option<ProfileId> }) -> Result<ModelCatalog, IpcError>;
    /// A saved profile's MCP servers as its engine reports them (state, tools), asked of the
    /// engine started with the profile; disabled ones as such.
    /// An engine's account as it reports it (started to ask), with the logins the app offers.
    engine_account(EngineAccountArgs { engine: Engine }) -> Result<EngineAccount, IpcError>;
    /// Start logging `engine` in (the settings' own home): done at once with an API key, else
    /// the page to open and a login id to wait for.
    engine_login(EngineLoginArgs { engine: Engine, request: LoginRequest }) -> Result<LoginStart, IpcError>;
    /// Wait for a started login to end (bounded): the account then.
    engine_login_wait(EngineLoginWaitArgs { login_id: String }) -> Result<EngineAccount, IpcError>;
    /// Give up a started login.
    engine_login_cancel(EngineLoginCancelArgs { login_id: String }) -> Result<(), IpcError>;
    /// Log `engine` out (it forgets its stored login): the account then.
    engine_logout(EngineLogoutArgs { engine: Engine }) -> Result<EngineAccount, IpcError>;
    mcp_status(McpStatusArgs { workspace_id: WorkspaceId, profile_id: ProfileId }) -> Result<McpReport, IpcError>;
    /// A new profile (masked in the answer). A new endpoint is saved only once the user
    /// confirmed it in a native dialog; a rejected spec answers with its field errors.
    create_profile(CreateProfileArgs { workspace_id: WorkspaceId, spec: ProfileSpec }) -> Result<Profile, ProfileError>;
    /// A secret sent back as `••••` keeps its stored value.
    update_profile(UpdateProfileArgs { id: ProfileId, spec: ProfileSpec }) -> Result<Profile, ProfileError>;
    duplicate_profile(DuplicateProfileArgs { id: ProfileId }) -> Result<Profile, ProfileError>;
    set_default_profile(SetDefaultProfileArgs { id: ProfileId }) -> Result<(), ProfileError>;
    /// Sessions that used it keep their history and run with the engine's defaults.
    delete_profile(DeleteProfileArgs { id: ProfileId }) -> Result<(), ProfileError>;

    /// Messages matching `query`, best first (at most `limit`, 1..=100); `workspaceId` null
    /// searches every workspace.
    search_messages(SearchMessagesArgs { query: String, workspace_id: Option<WorkspaceId>, limit: u32 }) -> Result<Vec<SearchHit>, IpcError>;
    rename_session(RenameSessionArgs { session_id: SessionId, title: String }) -> Result<Session, IpcError>;
    /// Archive (hidden from the list unless "Show archived" is on) or unarchive.
    archive_session(ArchiveSessionArgs { session_id: SessionId, archived: bool }) -> Result<Session, IpcError>;
    /// What deleting the session would remove, for the confirm.
    session_footprint(SessionFootprintArgs { session_id: SessionId }) -> Result<SessionFootprint, IpcError>;
    delete_session(DeleteSessionArgs { session_id: SessionId }) -> Result<(), IpcError>;
    /// Opens the native save dialog; the path written, or `null` when the user cancelled.
    export_session(ExportSessionArgs { session_id: SessionId, format: ExportFormat }) -> Result<Option<String>, IpcError>;

    /// Decide from a card; refused (`conflict`) when the request is no longer pending.
    /// `stop` goes with a deny only: deny and end the run.
    decide_approval(DecideApprovalArgs { approval_id: ApprovalId, decision: UserDecision, stop: bool, message: Option<String> }) -> Result<Approval, IpcError>;
    answer_question(AnswerQuestionArgs { approval_id: ApprovalId, answers: BTreeMap<String, Vec<String>> }) -> Result<Approval, IpcError>;
    /// Every pending request across sessions (the Approvals view).
    list_pending_approvals(ListPendingApprovalsArgs {}) -> Result<Vec<Approval>, IpcError>;
    /// What an engine can do (the engine crate's declaration): cards offer only that.
    engine_capabilities(EngineCapabilitiesArgs { engine: Engine }) -> Result<EngineCapabilities, IpcError>;
    /// Every engine the app can run (the engine crate's registry), in the order the window
    /// lists them.
    list_engines(ListEnginesArgs {}) -> Result<Vec<EngineInfo>, IpcError>;

    /// A dropped or picked file, by the token its drop or pick issued (used up).
    import_attachment_token(ImportAttachmentTokenArgs { token: String }) -> Result<Attachment, IpcError>;
    /// A pasted file: its bytes as the request body, its name in a header.
    import_attachment_bytes(ImportAttachmentBytesArgs { file_name: String }) -> Result<Attachment, IpcError>, Raw;
    /// The clipboard's image, read by the shell (WebKitGTK pastes only text into the page).
    import_clipboard_image(ImportClipboardImageArgs {}) -> Result<Attachment, IpcError>;
    /// A stored attachment's bytes (image thumbnails).
    read_attachment(ReadAttachmentArgs { sha256: String }) -> Result<Bytes, IpcError>;
    /// The native picker; the chosen files as tokens (empty when cancelled).
    pick_files(PickFilesArgs {}) -> Result<Vec<OfferedFile>, IpcError>;
    /// A web or mail link from the agent's text, in the system browser (never in the app).
    open_external(OpenExternalArgs { url: String }) -> Result<(), IpcError>;

    /// A notification's body was clicked: that request (`null`: the Approvals view).
    watch_notification_clicks(WatchNotificationClicksArgs { on_open: Channel<Option<Approval>> }) -> Result<(), IpcError>;
    /// The window was closed while a run is active and nobody answered yet: ask.
    watch_close_requests(WatchCloseRequestsArgs { on_ask: Channel<()> }) -> Result<(), IpcError>;
    /// The answer (stored): keep running in the tray (hides the window) or quit.
    keep_running_in_tray(KeepRunningInTrayArgs { keep: bool }) -> Result<(), IpcError>;
    /// The window's first paint, for the start-up figures the shell logs.
    window_painted(WindowPaintedArgs { navigation_start: f64, script_start: f64, first_paint: Option<f64> }) -> Result<(), IpcError>;

    /// Every engine as `agentdesk-cli doctor` sees it; `checkLogin` starts each once.
    engines_health(EnginesHealthArgs { check_login: bool }) -> Result<Vec<EngineHealth>, IpcError>;
    /// Forget the executable chosen for an engine program (`codex`, `opencode`...; PATH
    /// discovery again). `path` must be
    /// empty: the window never names an executable.
    set_engine_path(SetEnginePathArgs { program: String, path: Option<String> }) -> Result<(), IpcError>;
    /// The system's file picker, opened by the shell, which checks and stores the picked
    /// executable; its path, or `null` when cancelled.
    pick_engine_binary(PickEngineBinaryArgs { program: String }) -> Result<Option<String>, IpcError>;
    get_ui_settings(GetUiSettingsArgs {}) -> Result<UiSettings, IpcError>;
    set_ui_settings(SetUiSettingsArgs { settings: UiSettings }) -> Result<(), IpcError>;
    get_notification_prefs(GetNotificationPrefsArgs {}) -> Result<NotificationPrefs, IpcError>;
    set_notification_prefs(SetNotificationPrefsArgs { prefs: NotificationPrefs }) -> Result<(), IpcError>;
    data_info(DataInfoArgs {}) -> Result<DataInfo, IpcError>;
    /// Open the whole output of a tool item the timeline shows cut (its head and tail) with
    /// the system's app for text files. Only that session's output files: the page names an
    /// item, never a path.
    open_tool_output(OpenToolOutputArgs { session_id: SessionId, item_id: String }) -> Result<(), IpcError>;
    /// The engines' memory limit (Settings → Engines).
    engine_limits(EngineLimitsArgs {}) -> Result<EngineLimits, IpcError>;
    /// Set it (`null`: the default, `0`: never); engines start again with it at their next run.
    set_engine_memory_limit(SetEngineMemoryLimitArgs { mb: Option<u32> }) -> Result<EngineLimits, IpcError>;
    /// "Compact database": rewrite the database without its free pages and remove the
    /// attachment files nothing refers to. Refused (busy) while a run is active.
    compact_database(CompactDatabaseArgs {}) -> Result<CompactReport, IpcError>;
    /// The sessions the engines ran in a terminal (their own histories), imported in the
    /// background and kept current while the app runs: the status now and on every change
    /// (a scan's progress, its report per source, a generation the sidebar re-reads on).
    watch_histories(WatchHistoriesArgs { on_status: Channel<HistoryStatus> }) -> Result<(), IpcError>;
    /// Each engine's latest rate limits (the status bar), now and on every change.
    watch_rate_limits(WatchRateLimitsArgs { on_limits: Channel<Vec<EngineRateLimits>> }) -> Result<(), IpcError>;
    /// Scan the histories again now (only what changed is read).
    rescan_histories(RescanHistoriesArgs {}) -> Result<(), IpcError>;
    /// Which sources are scanned, watched and shown; a source turned on is scanned at once.
    set_history_settings(SetHistorySettingsArgs { settings: HistorySettings }) -> Result<(), IpcError>;
    /// Whether the workspace can have sessions in worktrees (else why not), its branches,
    /// its uncommitted files and its "Isolate new sessions in worktrees" setting.
    workspace_git(WorkspaceGitArgs { workspace_id: WorkspaceId }) -> Result<WorkspaceGit, IpcError>;
    set_isolate_sessions(SetIsolateSessionsArgs { workspace_id: WorkspaceId, on: bool }) -> Result<(), IpcError>;
    /// The session's worktree: its changes against the base, its commits.
    worktree_status(WorktreeStatusArgs { session_id: SessionId }) -> Result<WorktreeStatus, IpcError>;
    worktree_diff(WorktreeDiffArgs {
        session_id: SessionId,
        path: String,
        old_path: Option<String>,
        committed: bool,
    }) -> Result<FileDiff, IpcError>;
    /// Commit all uncommitted changes, or only `files`.
    worktree_commit(WorktreeCommitArgs { session_id: SessionId, message: String, files: Vec<String> }) -> Result<WorktreeStatus, IpcError>;
    worktree_discard(WorktreeDiscardArgs { session_id: SessionId, path: String }) -> Result<WorktreeStatus, IpcError>;
    /// Merge the branch into its base; a conflict is `merge_conflict` naming the files.
    worktree_merge(WorktreeMergeArgs { session_id: SessionId }) -> Result<MergeOutcome, IpcError>;
    remove_worktree(RemoveWorktreeArgs { session_id: SessionId, force: bool }) -> Result<WorktreeRemoved, IpcError>;
    recreate_worktree(RecreateWorktreeArgs { session_id: SessionId }) -> Result<WorktreeStatus, IpcError>;
    forget_worktree(ForgetWorktreeArgs { session_id: SessionId }) -> Result<Session, IpcError>;
    /// Open the session's worktree in the file manager (the folder comes from the store,
    /// never from the page).
    open_worktree_folder(OpenWorktreeFolderArgs { session_id: SessionId }) -> Result<(), IpcError>;
    /// Open the data or the log folder in the file manager (named, never a path).
    open_data_folder(OpenDataFolderArgs {
        #[ts(type = "\"data\" | \"logs\"")]
        which: String,
    }) -> Result<(), IpcError>;
}

/// `ui/src/ipc/commands.generated.ts`, as it must be committed.
pub fn typescript() -> String {
    let cfg = Config::new();
    let local = vec![(OfferedFile::ident(&cfg), OfferedFile::decl(&cfg))];
    crate::ipc_macro::typescript(&described(&cfg), &local)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn names_are_unique() {
        let mut names: Vec<&str> = COMMAND_NAMES.to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), COMMAND_NAMES.len());
    }

    #[test]
    fn arguments_are_read_as_the_page_sends_them() {
        let a: OpenSessionArgs = serde_json::from_value(
            serde_json::json!({"sessionId": "s1", "onBatch": "__CHANNEL__:7"}),
        )
        .unwrap();
        assert_eq!(a.session_id, "s1");
        assert_eq!(a.on_batch.id(), "__CHANNEL__:7");
        // A missing optional argument is `None`, as with a plain `#[tauri::command]`.
        let a: AddWorkspaceArgs =
            serde_json::from_value(serde_json::json!({"path": "/x"})).unwrap();
        assert_eq!(a.name, None);
        assert!(serde_json::from_value::<ListSessionsArgs>(serde_json::json!({})).is_err());
        assert_eq!(<ListProfilesArgs as Command>::NAME, "list_profiles");
        assert_eq!(<ImportAttachmentBytesArgs as Command>::BODY, Body::Raw);
    }

    #[test]
    fn raw_arguments_are_read_from_their_headers() {
        let a: ImportAttachmentBytesArgs =
            read_headers(|h| (h == "x-file-name").then(|| "shot%20%C3%A9.png".to_string()))
                .unwrap();
        assert_eq!(a.file_name, "shot é.png");
        assert!(read_headers::<ImportAttachmentBytesArgs>(|_| None).is_err());
        let e = read_json::<ListSessionsArgs>(&serde_json::json!({"workspaceId": 3})).unwrap_err();
        assert!(e.starts_with("invalid arguments for list_sessions"), "{e}");
    }
}
