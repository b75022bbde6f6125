// Settings (engines, window and notification preferences, data folders), injectable for the
// settings screens' tests; errors come back as `IpcFailure` like every other command.
import type { CompactReport } from "../generated/CompactReport";
import type { DataInfo } from "../generated/DataInfo";
import type { EngineAccount } from "../generated/EngineAccount";
import type { EngineHealth } from "../generated/EngineHealth";
import type { EngineLimits } from "../generated/EngineLimits";
import type { LoginKind } from "../generated/LoginKind";
import type { LoginRequest } from "../generated/LoginRequest";
import type { LoginStart } from "../generated/LoginStart";
import type { NotificationPrefs } from "../generated/NotificationPrefs";
import type { UiSettings } from "../generated/UiSettings";
import * as commands from "./commands.generated";

export type { CompactReport, DataInfo, EngineAccount, EngineHealth, EngineLimits, LoginKind, LoginRequest, LoginStart, NotificationPrefs, UiSettings };

export const settingsApi = {
  /** Every engine as `agentdesk-cli doctor` sees it; `checkLogin` starts each once. */
  enginesHealth: commands.enginesHealth,
  /** Forget the chosen executable (PATH discovery again). The window never names a path. */
  /** By program name (`codex`, `opencode`...). */
  clearEnginePath: (program: string) => commands.setEnginePath(program),
  /** The system's file picker, opened by the shell, which checks and stores the picked
   *  executable; its path, or `null` when cancelled. */
  pickEngineBinary: commands.pickEngineBinary,
  getUiSettings: commands.getUiSettings,
  setUiSettings: commands.setUiSettings,
  getNotificationPrefs: commands.getNotificationPrefs,
  setNotificationPrefs: commands.setNotificationPrefs,
  dataInfo: commands.dataInfo,
  openDataFolder: commands.openDataFolder,
  /** Rewrite the database without its free pages, remove unused attachment files; refused
   *  (busy) while a run is active. */
  compactDatabase: commands.compactDatabase,
  /** Which history sources are scanned, watched and shown (a source turned on is scanned). */
  setHistorySettings: commands.setHistorySettings,
  rescanHistories: commands.rescanHistories,
  /** The engines' memory limit (`null`: the default, 0: never); engines use it from their next start. */
  engineLimits: commands.engineLimits,
  setEngineMemoryLimit: (mb: number | null) => commands.setEngineMemoryLimit(mb),
  /** An engine's account: starts the engine once to ask (a second or so), so on request. */
  engineAccount: commands.engineAccount,
  /** An API key login is confirmed by the shell in a native dialog first (the window cannot
   *  answer it); a browser or device login answers with a login id to wait for. */
  engineLogin: commands.engineLogin,
  engineLoginWait: commands.engineLoginWait,
  engineLoginCancel: commands.engineLoginCancel,
  /** Confirmed by the shell in a native dialog too. */
  engineLogout: commands.engineLogout,
  /** The system browser (a login page). */
  openExternal: commands.openExternal,
  /** The workspaces (their hosts: Settings → Remote hosts). */
  listWorkspaces: commands.listWorkspaces,
  /** Codex and Claude Code on an SSH host: found, version, logged in. */
  remoteEnginesHealth: (host: string, checkLogin: boolean) => commands.remoteEnginesHealth(host, checkLogin),
};

export type SettingsApi = typeof settingsApi;
