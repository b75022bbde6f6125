// Settings (engines, window and notification preferences, data folders), injectable for the
// settings screens' tests; errors come back as `IpcFailure` like every other command.
import type { DataInfo } from "../generated/DataInfo";
import type { EngineHealth } from "../generated/EngineHealth";
import type { NotificationPrefs } from "../generated/NotificationPrefs";
import type { UiSettings } from "../generated/UiSettings";
import * as commands from "./commands.generated";

export type { DataInfo, EngineHealth, NotificationPrefs, UiSettings };

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
  /** Which history sources are scanned, watched and shown (a source turned on is scanned). */
  setHistorySettings: commands.setHistorySettings,
  rescanHistories: commands.rescanHistories,
};

export type SettingsApi = typeof settingsApi;
