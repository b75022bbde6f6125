// The profile editor's and the settings' command objects as component tests fake them:
// every command answers something plausible; a test overrides what it looks at.
import { vi } from "vitest";
import type { Profile } from "../ipc";
import type { ProfilesApi } from "../ipc/profiles";
import type { SettingsApi } from "../ipc/settings";
import { ENGINES } from "./fakeIpc";

/** `first` is what create/update/duplicate answer (the list's first, else `fallback`). */
export function fakeProfilesApi(list: Profile[], fallback: Profile, over: Partial<ProfilesApi> = {}): ProfilesApi {
  const first = list[0] ?? fallback;
  return {
    list: vi.fn(async () => list),
    create: vi.fn(async () => first),
    update: vi.fn(async () => first),
    duplicate: vi.fn(async () => first),
    setDefault: vi.fn(async () => null),
    remove: vi.fn(async () => null),
    listEngines: vi.fn(async () => ENGINES),
    // No list unless a test gives one: the model is then a plain text field.
    listModels: vi.fn(async () => ({ models: [], unavailable: "Codex does not list its models here." })),
    mcpStatus: vi.fn(async () => ({ servers: [], unavailable: null })),
    ...over,
  };
}

const notFaked = async (): Promise<never> => {
  throw new Error("not faked");
};

export function fakeSettingsApi(over: Partial<SettingsApi> = {}): SettingsApi {
  return {
    enginesHealth: async () => [],
    clearEnginePath: async () => null,
    pickEngineBinary: async () => null,
    getUiSettings: async () => ({ theme: "system", sendKey: "enter" }),
    setUiSettings: async () => null,
    getNotificationPrefs: async () => ({ approvals: "when_unfocused", questions: "when_unfocused", runs: "when_unfocused", runMinSecs: 30, sound: true }),
    setNotificationPrefs: async () => null,
    dataInfo: async () => ({ dataDir: "/d", logDir: "/d/logs", databasePath: "/d/agentdesk.db", databaseBytes: 3 * 1024 * 1024 }),
    openDataFolder: async () => null,
    engineLimits: async () => ({ memoryLimitMb: null, defaultMemoryLimitMb: 4096 }),
    setEngineMemoryLimit: async (mb: number | null) => ({ memoryLimitMb: mb, defaultMemoryLimitMb: 4096 }),
    compactDatabase: async () => ({ beforeBytes: 3 * 1024 * 1024, afterBytes: 1024 * 1024, attachmentsRemoved: 0 }),
    setHistorySettings: async () => null,
    rescanHistories: async () => null,
    engineAccount: notFaked,
    engineLogin: notFaked,
    engineLoginWait: notFaked,
    engineLoginCancel: async () => null,
    engineLogout: notFaked,
    openExternal: async () => null,
    listWorkspaces: async () => [],
    remoteEnginesHealth: async () => [],
    ...over,
  };
}
