// The sidebar's terminal sessions (the background import) and the origin of imported sessions.
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { HistoryStatus, ImportReport } from "../../ipc";
import { ActivityStore } from "../../state/activity";
import { session } from "../../test/fakeIpc";
import { foldersWithoutWorkspace, TerminalSessions } from "./TerminalSessions";
import { SessionList, SHOWN_SESSIONS } from "./SessionList";

afterEach(cleanup);

const report = (over: Partial<ImportReport["sources"][number]> = {}): ImportReport => ({
  dryRun: false,
  sources: [
    {
      origin: "claude-code",
      folder: "/home/me/.claude",
      files: 3,
      unchanged: 0,
      sessionsAdded: 2,
      sessionsUpdated: 1,
      turns: 9,
      skipped: 0,
      unreadable: 0,
      withoutWorkspace: [],
      ...over,
    },
  ],
});

const status = (over: Partial<HistoryStatus> = {}): HistoryStatus => ({
  sources: [{ origin: "claude-code", folder: "/home/me/.claude", enabled: true, watching: true }],
  importing: null,
  last: report(),
  lastAt: 1,
  error: null,
  generation: 1,
  ...over,
});

describe("TerminalSessions", () => {
  it("shows the background import's progress, then Re-scan", () => {
    const onRescan = vi.fn();
    const props = { disabled: false, onRescan, onAddWorkspace: vi.fn() };
    const { rerender } = render(<TerminalSessions status={status({ importing: { done: 1, total: 4 } })} {...props} />);
    const bar = screen.getByRole("progressbar", { name: "Import progress" }) as HTMLProgressElement;
    expect([bar.value, bar.max]).toEqual([1, 4]);
    expect(screen.queryByRole("button", { name: "Re-scan terminal sessions" })).toBeNull();
    rerender(<TerminalSessions status={status()} {...props} />);
    expect(screen.queryByRole("progressbar")).toBeNull();
    fireEvent.click(screen.getByRole("button", { name: "Re-scan terminal sessions" }));
    expect(onRescan).toHaveBeenCalledTimes(1);
  });

  it("offers the folders with terminal sessions as workspaces, most sessions first", () => {
    const onAddWorkspace = vi.fn();
    const two = report({ withoutWorkspace: [{ folder: "/src/small", sessions: 1 }] });
    two.sources.push({ ...two.sources[0]!, origin: "codex-cli", withoutWorkspace: [{ folder: "/src/big", sessions: 5 }] });
    render(<TerminalSessions status={status({ last: two })} disabled={false} onRescan={vi.fn()} onAddWorkspace={onAddWorkspace} />);
    const list = screen.getByRole("list", { name: "Terminal sessions in other folders" });
    expect(list.textContent).toBe("big · 5 sessionsAdd workspacesmall · 1 sessionAdd workspace");
    fireEvent.click(screen.getByRole("button", { name: "Add workspace /src/big" }));
    expect(onAddWorkspace).toHaveBeenCalledWith("/src/big");
  });

  it("says when the last scan failed", () => {
    render(<TerminalSessions status={status({ error: "the disk is full" })} disabled={false} onRescan={vi.fn()} onAddWorkspace={vi.fn()} />);
    expect(screen.getByRole("alert").textContent).toBe("The last scan failed: the disk is full");
    expect(foldersWithoutWorkspace(null)).toEqual([]);
  });
});

describe("SessionList", () => {
  it("names where an imported session began", () => {
    render(
      <SessionList
        sessions={[session({ id: "a", title: "Mine" }), session({ id: "b", title: "From the terminal", origin: "claude-code" })]}
        activity={new ActivityStore()}
        selectedSessionId={null}
        onOpen={vi.fn()}
      />,
    );
    expect(screen.getByRole("button", { name: "From the terminal from Claude Code" }).getAttribute("data-testid")).toBe("session-item");
    expect(screen.getByRole("button", { name: "Mine" }).getAttribute("data-testid")).toBe("session-item");
  });
});

describe("SessionList, long", () => {
  it("lists the newest sessions first and more on ask, the open one always", () => {
    const many = Array.from({ length: 100 }, (_, i) => session({ id: `s${i}`, title: `Session ${i}` }));
    render(<SessionList sessions={many} activity={new ActivityStore()} selectedSessionId="s90" onOpen={vi.fn()} />);
    const titles = () => screen.getAllByTestId("session-item").map((b) => b.textContent);
    expect(titles().length).toBe(SHOWN_SESSIONS + 1);
    expect(titles()[SHOWN_SESSIONS]).toBe("Session 90");
    fireEvent.click(screen.getByRole("button", { name: `Show ${SHOWN_SESSIONS} more of 60 older` }));
    expect(titles().length).toBe(2 * SHOWN_SESSIONS + 1);
    fireEvent.click(screen.getByRole("button", { name: "Show 20 more of 20 older" }));
    expect(titles().length).toBe(100);
    expect(screen.queryByRole("button", { name: /more of/ })).toBeNull();
  });
});
