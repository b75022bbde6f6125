import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { IpcFailure } from "../../ipc";
import type { EngineHealth } from "../../ipc/settings";
import { fakeSettingsApi } from "../../test/fakeApis";
import { RemoteHostsSection } from "./RemoteHostsSection";

afterEach(cleanup);

const there = (over: Partial<EngineHealth>): EngineHealth => ({
  engine: "codex",
  program: "codex",
  displayName: "Codex",
  path: "/home/me/.npm-global/bin/codex",
  foundVia: "remote",
  overridePath: null,
  version: "codex-cli 0.169.0",
  loggedIn: true,
  loginCheckable: true,
  problem: null,
  fixCommands: [],
  ...over,
});

describe("Settings → Remote hosts", () => {
  it("lists each host of a remote workspace once and checks its engines on request", async () => {
    const remoteEnginesHealth = vi.fn(async (host: string) => {
      if (host === "gone") throw new IpcFailure({ code: "remote", message: "gone: did not answer within 10 s" });
      return [
        there({}),
        there({
          engine: "claude",
          program: "claude",
          displayName: "Claude Code",
          path: null,
          version: null,
          loggedIn: null,
          problem: { code: "engine_missing", message: "claude on devbox not found" },
          fixCommands: ["ssh -t devbox npm install -g @anthropic-ai/claude-code"],
        }),
      ];
    });
    const api = fakeSettingsApi({
      listWorkspaces: async () => [
        { id: "1", name: "a", path: "/srv/a", host: "devbox", createdAt: 1 },
        { id: "2", name: "b", path: "/srv/b", host: "devbox", createdAt: 2 },
        { id: "3", name: "c", path: "/srv/c", host: "gone", createdAt: 3 },
        { id: "4", name: "local", path: "/home/me/l", host: null, createdAt: 4 },
      ],
      remoteEnginesHealth,
    });
    render(<RemoteHostsSection api={api} />);
    await screen.findByRole("heading", { name: "Remote hosts" });
    const devbox = screen.getByRole("region", { name: "Engines on devbox" });
    expect(screen.getAllByRole("region", { name: /^Engines on/ }).map((r) => r.getAttribute("aria-label"))).toEqual(["Engines on devbox", "Engines on gone"]);
    expect(remoteEnginesHealth).not.toHaveBeenCalled();
    await act(async () => fireEvent.click(within(devbox).getByRole("button", { name: "Check engines" })));
    expect(remoteEnginesHealth).toHaveBeenCalledWith("devbox", true);
    const codex = within(devbox).getByRole("group", { name: "Codex on devbox" });
    expect(codex.textContent).toContain("codex-cli 0.169.0");
    expect(codex.textContent).toContain("Ready, logged in");
    const claude = within(devbox).getByRole("group", { name: "Claude Code on devbox" });
    expect(claude.textContent).toContain("not found on the login shell's PATH");
    expect(within(claude).getByLabelText("Commands for Claude Code on devbox").textContent).toBe("ssh -t devbox npm install -g @anthropic-ai/claude-code");
    const gone = screen.getByRole("region", { name: "Engines on gone" });
    await act(async () => fireEvent.click(within(gone).getByRole("button", { name: "Check engines" })));
    expect(within(gone).getByRole("alert").textContent).toContain("did not answer within 10 s");
  });

  it("shows nothing without remote workspaces", async () => {
    const api = fakeSettingsApi({ listWorkspaces: async () => [{ id: "4", name: "local", path: "/l", host: null, createdAt: 4 }] });
    const { container } = render(<RemoteHostsSection api={api} />);
    await act(async () => {});
    expect(container.textContent).toBe("");
  });
});
