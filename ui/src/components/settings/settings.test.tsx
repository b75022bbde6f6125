import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { IpcFailure } from "../../ipc";
import { FirstRun } from "../firstrun/FirstRun";
import { needsSetup, usable, type EngineHealthState } from "../firstrun/health";
import { NavigationContext } from "../../app/navigation";
import { Navigator } from "../../app/route";
import { isEngineSetupError, SettingsLink } from "../firstrun/SettingsLink";
import type { EngineHealth, SettingsApi } from "../../ipc/settings";
import { applyTheme, isSendKey, setUiSettingsLocal, uiSettings } from "./prefs";
import { SettingsView } from "./SettingsView";
import { fakeSettingsApi } from "../../test/fakeApis";

afterEach(() => {
  cleanup();
  setUiSettingsLocal({ theme: "system", sendKey: "enter" });
});

const codex = (over: Partial<EngineHealth> = {}): EngineHealth => ({
  engine: "codex",
  program: "codex",
  displayName: "Codex",
  path: "/usr/bin/codex",
  foundVia: "path",
  overridePath: null,
  version: "codex-cli 0.169.0",
  loggedIn: true,
  loginCheckable: true,
  problem: null,
  fixCommands: [],
  ...over,
});
const missing = (engine: EngineHealth["engine"], cmd: string): EngineHealth => ({
  engine,
  program: engine,
  displayName: engine === "codex" ? "Codex" : "Claude Code",
  path: null,
  foundVia: null,
  overridePath: null,
  version: null,
  loggedIn: null,
  loginCheckable: true,
  problem: { code: "engine_missing", message: `${engine} not found` },
  fixCommands: [cmd],
});

function state(health: EngineHealth[] | null, recheck = vi.fn(async () => {})): EngineHealthState {
  return { health, checking: false, error: null, recheck };
}

const fakeApi = (over: Partial<SettingsApi> = {}) => fakeSettingsApi(over);

describe("engine health", () => {
  it("needs set-up only when no engine can run", () => {
    expect(needsSetup(null)).toBe(false);
    expect(needsSetup([missing("codex", "x"), missing("claude", "y")])).toBe(true);
    expect(needsSetup([codex({ loggedIn: false }), missing("claude", "y")])).toBe(true);
    expect(needsSetup([codex({ loggedIn: null }), missing("claude", "y")])).toBe(false);
    expect(usable(codex({ problem: { code: "engine_version_unsupported", message: "old" } }))).toBe(false);
  });

  it("the first-run screen names the commands and re-checks with the login probe", async () => {
    const recheck = vi.fn(async () => {});
    const settings = vi.fn();
    render(
      <FirstRun
        engines={state([missing("codex", "npm install -g @openai/codex"), missing("claude", "npm install -g @anthropic-ai/claude-code")], recheck)}
        onOpenSettings={settings}
        onContinue={() => {}}
      />,
    );
    expect(screen.getByLabelText("Commands for Codex").textContent).toBe("npm install -g @openai/codex");
    expect(screen.getByLabelText("Commands for Claude Code").textContent).toBe("npm install -g @anthropic-ai/claude-code");
    // Nothing found: nothing to continue with.
    expect(screen.queryByRole("button", { name: "Continue anyway" })).toBeNull();
    fireEvent.click(screen.getByRole("button", { name: "Re-check" }));
    expect(recheck).toHaveBeenCalledWith(true);
    fireEvent.click(screen.getByRole("button", { name: "Open Settings" }));
    expect(settings).toHaveBeenCalled();
  });

  it("a logged-out engine shows its login commands and may be skipped", () => {
    const go = vi.fn();
    render(
      <FirstRun
        engines={state([codex({ loggedIn: false, fixCommands: ["codex login"] }), missing("claude", "npm install -g @anthropic-ai/claude-code")])}
        onOpenSettings={() => {}}
        onContinue={go}
      />,
    );
    expect(screen.getByTestId("firstrun-codex").textContent).toContain("Not logged in");
    expect(screen.getByLabelText("Commands for Codex").textContent).toBe("codex login");
    fireEvent.click(screen.getByRole("button", { name: "Continue anyway" }));
    expect(go).toHaveBeenCalled();
  });
});

describe("settings", () => {
  it("shows the executable, version and login, and a refused pick next to its button", async () => {
    const pickEngineBinary = vi.fn(async () => {
      throw new IpcFailure({ code: "engine_missing", message: "codex not found — the configured path /home/u/notes.txt is not an executable file" });
    });
    const recheck = vi.fn(async () => {});
    render(<SettingsView engines={state([codex(), missing("claude", "npm i")], recheck)} onError={() => {}} api={fakeApi({ pickEngineBinary })} />);
    expect(screen.getByTestId("engine-codex-version").textContent).toBe("codex-cli 0.169.0");
    expect(screen.getByTestId("engine-codex-path").textContent).toContain("/usr/bin/codex");
    expect(screen.getByTestId("engine-codex-login").textContent).toBe("logged in");
    // Opening Settings asks the engines who is logged in.
    expect(recheck).toHaveBeenCalledWith(true);
    recheck.mockClear();
    const choose = screen.getByRole("button", { name: "Choose the Codex executable" });
    await act(async () => fireEvent.click(choose));
    expect(pickEngineBinary).toHaveBeenCalledWith("codex");
    const error = await screen.findByTestId("engine-codex-path-error");
    expect(error.textContent).toContain("/home/u/notes.txt is not an executable file");
    expect(choose.getAttribute("aria-invalid")).toBe("true");
    expect(choose.getAttribute("aria-describedby")).toContain(error.id);
    expect(recheck).not.toHaveBeenCalled();
  });

  // Issue 19 item 7: the window never names an executable; there is no field to type one.
  it("has no typed path: the shell's picker stores the file, then the engines are re-checked", async () => {
    const pickEngineBinary = vi.fn(async (_e: string): Promise<string | null> => "/opt/codex/bin/codex");
    const clearEnginePath = vi.fn(async () => null);
    const recheck = vi.fn(async () => {});
    render(
      <SettingsView
        engines={state([missing("codex", "npm i"), codex({ engine: "claude", program: "claude", displayName: "Claude Code", foundVia: "settings", overridePath: "/opt/claude" })], recheck)}
        onError={() => {}}
        api={fakeApi({ pickEngineBinary, clearEnginePath })}
      />,
    );
    expect(screen.queryByRole("textbox", { name: /executable path/ })).toBeNull();
    expect(screen.queryByRole("button", { name: "Save the Codex path" })).toBeNull();
    expect(screen.queryByRole("button", { name: "Clear the Codex path" })).toBeNull();
    recheck.mockClear();
    await act(async () => fireEvent.click(screen.getByRole("button", { name: "Choose the Codex executable" })));
    expect(pickEngineBinary).toHaveBeenCalledWith("codex");
    expect(recheck).toHaveBeenCalledWith(true);
    // A cancelled pick changes nothing.
    recheck.mockClear();
    pickEngineBinary.mockResolvedValueOnce(null);
    await act(async () => fireEvent.click(screen.getByRole("button", { name: "Choose the Codex executable" })));
    expect(recheck).not.toHaveBeenCalled();
    await act(async () => fireEvent.click(screen.getByRole("button", { name: "Clear the Claude Code path" })));
    expect(clearEnginePath).toHaveBeenCalledWith("claude");
    expect(recheck).toHaveBeenCalledWith(true);
  });

  it("saves notification preferences, theme and send key; shows the data folders", async () => {
    const setNotificationPrefs = vi.fn(async () => null);
    const setUiSettings = vi.fn(async () => null);
    const openDataFolder = vi.fn(async () => null);
    render(<SettingsView engines={state([])} onError={() => {}} api={fakeApi({ setNotificationPrefs, setUiSettings, openDataFolder })} />);
    const runs = await screen.findByLabelText("Finished runs");
    fireEvent.change(runs, { target: { value: "never" } });
    fireEvent.click(screen.getByLabelText("Play a sound"));
    await act(async () => fireEvent.click(screen.getByRole("button", { name: "Save notifications" })));
    expect(setNotificationPrefs).toHaveBeenCalledWith({ approvals: "when_unfocused", questions: "when_unfocused", runs: "never", runMinSecs: 30, sound: false });
    await screen.findByText("Saved");

    fireEvent.click(screen.getByLabelText("Dark"));
    expect(setUiSettings).toHaveBeenLastCalledWith({ theme: "dark", sendKey: "enter" });
    expect(document.documentElement.classList.contains("theme-dark")).toBe(true);
    fireEvent.click(screen.getByLabelText("Ctrl+Enter (Enter for a new line)"));
    expect(uiSettings()).toEqual({ theme: "dark", sendKey: "ctrl_enter" });

    expect((await screen.findByTestId("database-size")).textContent).toContain("3.0 MB");
    fireEvent.click(screen.getByRole("button", { name: "Open log folder" }));
    expect(openDataFolder).toHaveBeenCalledWith("logs");
  });

  it("the engines' memory limit shows the default, saves a number, and empty is the default again", async () => {
    const setEngineMemoryLimit = vi.fn(async (mb: number | null) => ({ memoryLimitMb: mb, defaultMemoryLimitMb: 4096 }));
    render(<SettingsView engines={state([])} onError={() => {}} api={fakeApi({ setEngineMemoryLimit })} />);
    const field = (await screen.findByLabelText("Stop an engine using more memory than (MB)")) as HTMLInputElement;
    expect(field.value).toBe("");
    expect(field.placeholder).toBe("4096 (0: never)");
    fireEvent.change(field, { target: { value: "2048" } });
    await act(async () => fireEvent.click(screen.getByRole("button", { name: "Save memory limit" })));
    expect(setEngineMemoryLimit).toHaveBeenLastCalledWith(2048);
    expect(screen.getAllByRole("status").some((s) => s.textContent === "Saved")).toBe(true);
    fireEvent.change(field, { target: { value: "" } });
    await act(async () => fireEvent.click(screen.getByRole("button", { name: "Save memory limit" })));
    expect(setEngineMemoryLimit).toHaveBeenLastCalledWith(null);
    expect(field.value).toBe("");
  });

  it("compacts the database and says what it gave back; a refusal is reported", async () => {
    let finish: (r: { beforeBytes: number; afterBytes: number; attachmentsRemoved: number }) => void = () => {};
    const compactDatabase = vi.fn(() => new Promise<{ beforeBytes: number; afterBytes: number; attachmentsRemoved: number }>((r) => (finish = r)));
    render(<SettingsView engines={state([])} onError={() => {}} api={fakeApi({ compactDatabase })} />);
    expect((await screen.findByTestId("database-size")).textContent).toContain("3.0 MB");
    fireEvent.click(screen.getByRole("button", { name: "Compact database" }));
    const busy = screen.getByRole("button", { name: "Compacting…" });
    expect((busy as HTMLButtonElement).disabled).toBe(true);
    await act(async () => finish({ beforeBytes: 3 * 1024 * 1024, afterBytes: 512 * 1024, attachmentsRemoved: 2 }));
    expect(screen.getByRole("status").textContent).toBe("Compacted: 3.0 MB → 512.0 KB; 2 unused attached files removed");
    expect(screen.getByTestId("database-size").textContent).toContain("512.0 KB");
    expect((screen.getByRole("button", { name: "Compact database" }) as HTMLButtonElement).disabled).toBe(false);

    cleanup();
    const onError = vi.fn();
    const refused = vi.fn(async () => {
      throw new IpcFailure({ code: "busy", message: "1 run is in progress: compact the database when it has finished" });
    });
    render(<SettingsView engines={state([])} onError={onError} api={fakeApi({ compactDatabase: refused })} />);
    const button = await screen.findByRole("button", { name: "Compact database" });
    await act(async () => fireEvent.click(button));
    expect(onError).toHaveBeenCalledWith({ code: "busy", message: "1 run is in progress: compact the database when it has finished" });
  });

  it("a preference the core refuses is rolled back and reported", async () => {
    const onError = vi.fn();
    const setUiSettings = vi.fn(async () => {
      throw new IpcFailure({ code: "storage_read_only", message: "read-only" });
    });
    render(<SettingsView engines={state([])} onError={onError} api={fakeApi({ setUiSettings })} />);
    fireEvent.click(screen.getByLabelText("Light"));
    await waitFor(() => expect(onError).toHaveBeenCalledWith({ code: "storage_read_only", message: "read-only" }));
    expect(uiSettings().theme).toBe("system");
  });
});

describe("preferences", () => {
  it("the theme is a class on the root", () => {
    const root = document.createElement("div");
    applyTheme("dark", root);
    expect(root.className).toBe("theme-dark");
    applyTheme("light", root);
    expect(root.className).toBe("theme-light");
    applyTheme("system", root);
    expect(root.className).toBe("");
  });

  it("Enter or Ctrl+Enter sends, as chosen", () => {
    const key = (over: Partial<{ key: string; shiftKey: boolean; ctrlKey: boolean; metaKey: boolean }>) => ({ key: "Enter", shiftKey: false, ctrlKey: false, metaKey: false, ...over });
    expect(isSendKey("enter", key({}))).toBe(true);
    expect(isSendKey("enter", key({ shiftKey: true }))).toBe(false);
    expect(isSendKey("ctrl_enter", key({}))).toBe(false);
    expect(isSendKey("ctrl_enter", key({ ctrlKey: true }))).toBe(true);
    expect(isSendKey("ctrl_enter", key({ metaKey: true }))).toBe(true);
    expect(isSendKey("enter", key({ key: "a" }))).toBe(false);
  });

  it("engine errors link to Settings", () => {
    expect(isEngineSetupError("engine_not_logged_in")).toBe(true);
    expect(isEngineSetupError("engine_failed")).toBe(false);
    const nav = new Navigator();
    render(
      <NavigationContext.Provider value={nav}>
        <SettingsLink code="engine_missing" />
      </NavigationContext.Provider>,
    );
    fireEvent.click(screen.getByRole("button", { name: "Open Settings" }));
    expect(nav.get()).toEqual({ kind: "settings" });
  });
});
