// Settings → Engines → account: checking it on request, logging in (API key, browser, device
// code), cancelling, logging out, and Claude Code's terminal-only login.
import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { IpcFailure } from "../../ipc";
import type { EngineHealthState } from "../firstrun/health";
import type { EngineAccount, EngineHealth, LoginStart, SettingsApi } from "../../ipc/settings";
import { EngineSettings } from "./EngineSettings";
import { fakeSettingsApi } from "../../test/fakeApis";

afterEach(cleanup);

const codex = (over: Partial<EngineHealth> = {}): EngineHealth => ({
  engine: "codex",
  program: "codex",
  displayName: "Codex",
  path: "/usr/bin/codex",
  foundVia: "path",
  overridePath: null,
  version: "codex-cli 0.169.0",
  loggedIn: false,
  loginCheckable: true,
  problem: null,
  fixCommands: [],
  ...over,
});

const account = (over: Partial<EngineAccount> = {}): EngineAccount => ({
  engine: "codex",
  loggedIn: false,
  method: null,
  email: null,
  plan: null,
  loginMethods: ["browser", "device_code", "api_key"],
  canLogOut: false,
  loginCommands: ["codex login"],
  unavailable: null,
  ...over,
});
const chatgpt = account({ loggedIn: true, method: "ChatGPT", email: "user@example.com", plan: "plus", canLogOut: true });

const started = (over: Partial<LoginStart>): LoginStart => ({ loginId: null, authUrl: null, verificationUrl: null, userCode: null, account: null, ...over });

/** A promise settled from the test. */
function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

function fakeApi(over: Partial<SettingsApi> = {}): SettingsApi {
  return fakeSettingsApi({
    engineAccount: vi.fn(async () => account()),
    engineLogin: vi.fn(async (): Promise<LoginStart> => {
      throw new Error("unexpected login");
    }),
    engineLoginWait: vi.fn(async (): Promise<EngineAccount> => {
      throw new Error("unexpected wait");
    }),
    engineLoginCancel: vi.fn(async () => null),
    engineLogout: vi.fn(async () => account()),
    openExternal: vi.fn(async () => null),
    ...over,
  });
}

function show(api: SettingsApi, health: EngineHealth[] = [codex()]) {
  const recheck = vi.fn(async () => {});
  const engines: EngineHealthState = { health, checking: false, error: null, recheck };
  render(<EngineSettings engines={engines} api={api} />);
  return recheck;
}

const click = (name: string) => act(async () => fireEvent.click(screen.getByRole("button", { name })));
const accountLine = () => screen.getByTestId("engine-codex-account").textContent;

describe("engine account", () => {
  it("is asked on request only, with a polite note while the engine answers", async () => {
    const asked = deferred<EngineAccount>();
    const engineAccount = vi.fn(() => asked.promise);
    show(fakeApi({ engineAccount }));
    expect(engineAccount).not.toHaveBeenCalled();
    expect(screen.queryByTestId("engine-codex-account")).toBeNull();
    await click("Check Codex account");
    expect(engineAccount).toHaveBeenCalledWith("codex");
    expect(screen.getByRole("button", { name: "Check Codex account" })).toHaveProperty("disabled", true);
    expect(screen.getByRole("status").textContent).toBe("Asking Codex…");
    await act(async () => asked.resolve(chatgpt));
    expect(accountLine()).toBe("Account: ChatGPT · user@example.com · plus");
    expect(screen.getByRole("status").textContent).toBe("");
    expect(screen.getByRole("button", { name: "Check Codex account" })).toHaveProperty("disabled", false);
    // Logged in: no login buttons, a logout one.
    expect(screen.queryByRole("button", { name: "Log in to Codex in the browser" })).toBeNull();
    expect(screen.getByRole("button", { name: "Log out of Codex" })).toBeTruthy();
  });

  it("says why the account is unknown", async () => {
    show(fakeApi({ engineAccount: async () => account({ loggedIn: null, unavailable: "Codex did not answer within 30 s" }) }));
    await click("Check Codex account");
    expect(accountLine()).toBe("Account: unknown — Codex did not answer within 30 s");
  });

  it("logs in with an API key, then forgets the key", async () => {
    const engineLogin = vi.fn(async (): Promise<LoginStart> => started({ account: account({ loggedIn: true, method: "API key", canLogOut: true }) }));
    const recheck = show(fakeApi({ engineLogin }));
    await click("Check Codex account");
    expect(accountLine()).toBe("Account: not logged in");
    await click("Use an API key for Codex");
    const input = screen.getByLabelText("Codex API key") as HTMLInputElement;
    expect(input.type).toBe("password");
    expect(input.getAttribute("autocomplete")).toBe("off");
    expect(input.getAttribute("spellcheck")).toBe("false");
    fireEvent.change(input, { target: { value: "sk-test-123" } });
    await click("Log in with this key");
    expect(engineLogin).toHaveBeenCalledWith("codex", { kind: "api_key", apiKey: "sk-test-123" });
    expect(accountLine()).toBe("Account: API key");
    expect(screen.queryByLabelText("Codex API key")).toBeNull();
    expect(screen.queryByText(/sk-test-123/)).toBeNull();
    expect(recheck).toHaveBeenCalledWith(true);
    expect(screen.getByRole("button", { name: "Log out of Codex" })).toBeTruthy();
  });

  it("a key refused in the dialog shows why, and the key is gone from the field", async () => {
    const engineLogin = vi.fn(async (): Promise<LoginStart> => {
      throw new IpcFailure({ code: "invalid_input", message: "not logged in: the API key was not confirmed in the dialog" });
    });
    const recheck = show(fakeApi({ engineLogin }));
    await click("Check Codex account");
    await click("Use an API key for Codex");
    fireEvent.change(screen.getByLabelText("Codex API key"), { target: { value: "sk-refused" } });
    await click("Log in with this key");
    expect(screen.getByRole("alert").textContent).toBe("not logged in: the API key was not confirmed in the dialog");
    expect((screen.getByLabelText("Codex API key") as HTMLInputElement).value).toBe("");
    expect(accountLine()).toBe("Account: not logged in");
    expect(recheck).not.toHaveBeenCalled();
    // Cancel closes the form.
    await click("Cancel");
    expect(screen.queryByLabelText("Codex API key")).toBeNull();
    expect(screen.getByRole("button", { name: "Use an API key for Codex" })).toBeTruthy();
  });

  it("the browser login opens the page, shows it, and waits for the user", async () => {
    const done = deferred<EngineAccount>();
    const authUrl = "https://auth.openai.com/oauth/authorize?client_id=x&state=y";
    const api = fakeApi({
      engineLogin: vi.fn(async () => started({ loginId: "L1", authUrl })),
      engineLoginWait: vi.fn(() => done.promise),
    });
    const recheck = show(api);
    await click("Check Codex account");
    await click("Log in to Codex in the browser");
    expect(api.engineLogin).toHaveBeenCalledWith("codex", { kind: "browser" });
    expect(api.openExternal).toHaveBeenCalledWith(authUrl);
    expect(api.engineLoginWait).toHaveBeenCalledWith("L1");
    expect(screen.getByRole("status").textContent).toBe("Waiting for you to finish in the browser…");
    expect(screen.getByText(authUrl)).toBeTruthy();
    expect(screen.getByRole("button", { name: "Cancel login" })).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Log in to Codex in the browser" })).toBeNull();
    await act(async () => done.resolve(chatgpt));
    expect(accountLine()).toBe("Account: ChatGPT · user@example.com · plus");
    expect(screen.queryByRole("button", { name: "Cancel login" })).toBeNull();
    expect(screen.queryByRole("alert")).toBeNull();
    expect(recheck).toHaveBeenCalledWith(true);
  });

  it("a cancelled login returns to the login buttons without an error", async () => {
    const done = deferred<EngineAccount>();
    const engineLoginCancel = vi.fn(async () => {
      done.reject(new IpcFailure({ code: "invalid_input", message: "the login was cancelled" }));
      return null;
    });
    const recheck = show(
      fakeApi({ engineLogin: async () => started({ loginId: "L2", authUrl: "https://auth.example/x" }), engineLoginWait: () => done.promise, engineLoginCancel }),
    );
    await click("Check Codex account");
    await click("Log in to Codex in the browser");
    await click("Cancel login");
    expect(engineLoginCancel).toHaveBeenCalledWith("L2");
    expect(screen.queryByRole("alert")).toBeNull();
    expect(screen.queryByRole("button", { name: "Cancel login" })).toBeNull();
    expect(screen.getByRole("button", { name: "Log in to Codex in the browser" })).toHaveProperty("disabled", false);
    expect(screen.getByRole("status").textContent).toBe("");
    expect(accountLine()).toBe("Account: not logged in");
    expect(recheck).not.toHaveBeenCalled();
  });

  it("a device login shows the code; a failed wait shows why", async () => {
    const done = deferred<EngineAccount>();
    const api = fakeApi({
      engineLogin: vi.fn(async () => started({ loginId: "L3", verificationUrl: "https://auth.openai.com/codex/device", userCode: "ABCD-1234" })),
      engineLoginWait: () => done.promise,
    });
    show(api);
    await click("Check Codex account");
    await click("Log in to Codex with a device code");
    expect(api.engineLogin).toHaveBeenCalledWith("codex", { kind: "device_code" });
    // The code is for any device: nothing is opened here.
    expect(api.openExternal).not.toHaveBeenCalled();
    expect(screen.getByText(/on any device and enter the code/).textContent).toBe(
      "Open https://auth.openai.com/codex/device on any device and enter the code ABCD-1234",
    );
    await act(async () => done.reject(new IpcFailure({ code: "invalid_input", message: "the login was not finished within 15 minutes" })));
    expect(screen.getByRole("alert").textContent).toBe("the login was not finished within 15 minutes");
    expect(screen.getByRole("button", { name: "Log in to Codex with a device code" })).toBeTruthy();
  });

  it("Claude Code is logged in from a terminal", async () => {
    const claude = codex({ engine: "claude", program: "claude", displayName: "Claude Code" });
    show(fakeApi({ engineAccount: async () => account({ engine: "claude", loginMethods: [], loginCommands: ["claude", "/login   (typed inside claude)"] }) }), [claude]);
    await click("Check Claude Code account");
    expect(screen.getByTestId("engine-claude-account").textContent).toBe("Account: not logged in");
    expect(screen.getByText("Log in from a terminal:")).toBeTruthy();
    expect(screen.getByLabelText("Login commands for Claude Code").textContent).toBe("claude\n/login   (typed inside claude)");
    expect(screen.queryByRole("button", { name: /Log in to Claude Code/ })).toBeNull();
    expect(screen.queryByRole("button", { name: "Log out of Claude Code" })).toBeNull();
  });

  it("logs out", async () => {
    const api = fakeApi({ engineAccount: async () => chatgpt });
    const recheck = show(api);
    await click("Check Codex account");
    await click("Log out of Codex");
    expect(api.engineLogout).toHaveBeenCalledWith("codex");
    expect(accountLine()).toBe("Account: not logged in");
    expect(screen.queryByRole("button", { name: "Log out of Codex" })).toBeNull();
    expect(screen.getByRole("button", { name: "Log in to Codex in the browser" })).toBeTruthy();
    expect(recheck).toHaveBeenCalledWith(true);
  });

  it("shows once per engine, and not for an agent whose login is its own", () => {
    const agents = [
      codex({ engine: "acp", program: "opencode", displayName: "opencode", loginCheckable: false }),
      codex(),
      codex({ program: "codex-other", displayName: "Codex (other)" }),
    ];
    show(fakeApi(), agents);
    expect(screen.getAllByRole("button", { name: /^Check .* account$/ })).toHaveLength(1);
    expect(within(screen.getByTestId("engine-codex")).getByRole("button", { name: "Check Codex account" })).toBeTruthy();
  });
});
