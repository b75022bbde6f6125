import { afterEach, describe, expect, it, vi } from "vitest";

afterEach(() => {
  vi.doUnmock("@tauri-apps/api/core");
  vi.resetModules();
});

async function withInvoke(impl: (...args: unknown[]) => Promise<unknown>) {
  vi.resetModules();
  const invoke = vi.fn(impl);
  vi.doMock("@tauri-apps/api/core", () => ({ invoke, Channel: class {} }));
  const commands = await import("./commands.generated");
  const client = await import("./client");
  return { invoke, commands, client };
}

describe("the generated commands", () => {
  it("send exactly the argument names the shell reads (camelCase), optional ones as null", async () => {
    const { invoke, commands } = await withInvoke(async () => null);
    await commands.addWorkspace("/w");
    expect(invoke).toHaveBeenLastCalledWith("add_workspace", { path: "/w", name: null }, undefined);
    await commands.createSession("w1", null, "claude");
    expect(invoke).toHaveBeenLastCalledWith("create_session", { workspaceId: "w1", profileId: null, engine: "claude", worktree: null }, undefined);
    await commands.loadTimeline("s1", null, 50);
    expect(invoke).toHaveBeenLastCalledWith("load_timeline", { sessionId: "s1", before: null, limit: 50 }, undefined);
    await commands.appInfo();
    expect(invoke).toHaveBeenLastCalledWith("app_info", undefined, undefined);
  });

  it("send a binary body with its arguments in percent-encoded headers", async () => {
    const { invoke, commands } = await withInvoke(async () => null);
    const bytes = new Uint8Array([1, 2, 3]);
    await commands.importAttachmentBytes(bytes, "shot é.png");
    expect(invoke).toHaveBeenLastCalledWith("import_attachment_bytes", bytes, { headers: { "x-file-name": "shot%20%C3%A9.png" } });
  });

  it("list every command once", async () => {
    const { commands } = await withInvoke(async () => null);
    expect(new Set(commands.COMMANDS).size).toBe(commands.COMMANDS.length);
    expect(commands.COMMANDS).toContain("list_profiles");
    expect(commands.COMMANDS).not.toContain("list_workspace_profiles");
  });
});

describe("errors", () => {
  it("an IpcError command rejects with an IpcFailure", async () => {
    const { commands, client } = await withInvoke(async () => {
      throw { code: "not_found", message: "gone" };
    });
    const e = await commands.listWorkspaces().catch((e: unknown) => e);
    expect(e).toBeInstanceOf(client.IpcFailure);
    expect(client.errorOf(e)).toEqual({ code: "not_found", message: "gone" });
  });

  it("a profile command rejects with its field errors, and is an IpcFailure too", async () => {
    const { commands, client } = await withInvoke(async () => {
      throw { code: "invalid_input", message: "bad", fields: [{ field: "baseUrl", message: "bad" }, { nope: 1 }] };
    });
    const e = await commands.listProfiles("w1").catch((e: unknown) => e);
    expect(e).toBeInstanceOf(client.ProfileFailure);
    expect(e).toBeInstanceOf(client.IpcFailure);
    expect(client.toProfileError(e)).toEqual({ code: "invalid_input", message: "bad", fields: [{ field: "baseUrl", message: "bad" }] });
    expect(client.errorOf(e)).toEqual({ code: "invalid_input", message: "bad" });
  });

  it("a bare string from Tauri (bad arguments) is an internal IpcError", async () => {
    const { commands, client } = await withInvoke(async () => {
      throw "invalid args `x` for command `y`";
    });
    const e = await commands.deleteProfile("p1").catch((e: unknown) => e);
    expect(client.toProfileError(e)).toEqual({ code: "internal", message: "invalid args `x` for command `y`", fields: [] });
  });
});

// Every call goes through the one client (its error normalisation): no other module imports
// `invoke` from Tauri.
describe("one client", () => {
  it("only ipc/client.ts calls invoke", () => {
    const sources = import.meta.glob("../**/*.{ts,tsx}", { query: "?raw", import: "default", eager: true }) as Record<string, string>;
    const callers = Object.entries(sources)
      .filter(([path]) => !path.includes(".test.") && !path.includes("/test/"))
      .filter(([, text]) => /import\s*\{[^}]*\binvoke\b[^}]*\}\s*from\s*"@tauri-apps\/api\/core"/.test(text) || text.includes("__TAURI_INTERNALS__.invoke"))
      .map(([path]) => path);
    expect(callers).toEqual(["./client.ts"]);
  });
});
