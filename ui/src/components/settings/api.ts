// Settings commands (issue 13 item 4). Kept next to the screens that use them; errors come
// back as `IpcFailure` like every other command.
import { invoke, type InvokeArgs } from "@tauri-apps/api/core";
import { IpcFailure, toIpcError, type Engine } from "../../ipc";
import type { DataInfo } from "../../generated/DataInfo";
import type { EngineHealth } from "../../generated/EngineHealth";
import type { NotificationPrefs } from "../../generated/NotificationPrefs";
import type { UiSettings } from "../../generated/UiSettings";

export type { DataInfo, EngineHealth, NotificationPrefs, UiSettings };

async function call<T>(command: string, args?: InvokeArgs): Promise<T> {
  try {
    return await invoke<T>(command, args);
  } catch (raw) {
    throw new IpcFailure(toIpcError(raw));
  }
}

export const settingsApi = {
  /** Both engines as `agentdesk-cli doctor` sees them; `checkLogin` starts each once. */
  enginesHealth: (checkLogin: boolean) => call<EngineHealth[]>("engines_health", { checkLogin }),
  /** Forget the chosen executable (PATH discovery again). The window never names a path. */
  clearEnginePath: (engine: Engine) => call<null>("set_engine_path", { engine }),
  /** The system's file picker, opened by the shell, which checks and stores the picked
   *  executable; its path, or `null` when cancelled. */
  pickEngineBinary: (engine: Engine) => call<string | null>("pick_engine_binary", { engine }),
  getUiSettings: () => call<UiSettings>("get_ui_settings"),
  setUiSettings: (settings: UiSettings) => call<null>("set_ui_settings", { settings }),
  getNotificationPrefs: () => call<NotificationPrefs>("get_notification_prefs"),
  setNotificationPrefs: (prefs: NotificationPrefs) => call<null>("set_notification_prefs", { prefs }),
  dataInfo: () => call<DataInfo>("data_info"),
  openDataFolder: (which: "data" | "logs") => call<null>("open_data_folder", { which }),
};

export type SettingsApi = typeof settingsApi;
