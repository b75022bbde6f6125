// Settings → Terminal sessions: every source with its folder and last scan, on/off, Re-scan.
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { HistoryStatus, SourceReport } from "../../ipc";
import { sourceLine, TerminalSessionsSection } from "./TerminalSessionsSection";

afterEach(cleanup);

const claude: SourceReport = {
  origin: "claude-code",
  folder: "/home/me/.claude",
  files: 12,
  unchanged: 10,
  sessionsAdded: 1,
  sessionsUpdated: 1,
  turns: 4,
  skipped: 3,
  unreadable: 1,
  withoutWorkspace: [{ folder: "/src/other", sessions: 2 }],
};

const status = (over: Partial<HistoryStatus> = {}): HistoryStatus => ({
  sources: [
    { origin: "claude-code", folder: "/home/me/.claude", enabled: true, watching: true },
    { origin: "codex-cli", folder: "/home/me/.codex", enabled: false, watching: false },
  ],
  importing: null,
  last: { dryRun: false, sources: [claude] },
  lastAt: 0,
  error: null,
  generation: 2,
  ...over,
});

describe("TerminalSessionsSection", () => {
  it("lists every source with its folder and what the last scan found", () => {
    const api = { setHistorySettings: vi.fn(async () => null), rescanHistories: vi.fn(async () => null) };
    render(<TerminalSessionsSection status={status()} api={api} onError={vi.fn()} />);
    expect(screen.getByRole("heading", { name: "Terminal sessions" })).toBeTruthy();
    const claudeBox = screen.getByRole("checkbox", { name: "Show sessions from Claude Code" }) as HTMLInputElement;
    const codexBox = screen.getByRole("checkbox", { name: "Show sessions from the Codex CLI" }) as HTMLInputElement;
    expect([claudeBox.checked, codexBox.checked]).toEqual([true, false]);
    expect(screen.getByTestId("history-source-codex-cli").textContent).toContain("/home/me/.codex");
    expect(screen.getByTestId("history-report-claude-code").textContent).toBe(
      "12 sessions found · 1 new · 1 updated · 3 damaged lines skipped · 1 file could not be read",
    );
    expect(screen.getByTestId("history-other-folders").textContent).toContain("/src/other (2 sessions)");
  });

  it("turns a source on or off and re-scans", async () => {
    const api = { setHistorySettings: vi.fn(async () => null), rescanHistories: vi.fn(async () => null) };
    render(<TerminalSessionsSection status={status()} api={api} onError={vi.fn()} />);
    fireEvent.click(screen.getByRole("checkbox", { name: "Show sessions from Claude Code" }));
    expect(api.setHistorySettings).toHaveBeenCalledWith({ hidden: ["codex-cli", "claude-code"] });
    await waitFor(() => expect((screen.getByRole("checkbox", { name: "Show sessions from the Codex CLI" }) as HTMLInputElement).disabled).toBe(false));
    fireEvent.click(screen.getByRole("checkbox", { name: "Show sessions from the Codex CLI" }));
    expect(api.setHistorySettings).toHaveBeenLastCalledWith({ hidden: [] });
    fireEvent.click(screen.getByRole("button", { name: "Re-scan" }));
    expect(api.rescanHistories).toHaveBeenCalledTimes(1);
  });

  it("shows a running scan's progress and a failed scan's reason", () => {
    const api = { setHistorySettings: vi.fn(async () => null), rescanHistories: vi.fn(async () => null) };
    render(<TerminalSessionsSection status={status({ importing: { done: 5, total: 20 }, error: "disk full" })} api={api} onError={vi.fn()} />);
    const bar = screen.getByRole("progressbar", { name: "Import progress" }) as HTMLProgressElement;
    expect([bar.value, bar.max]).toEqual([5, 20]);
    expect((screen.getByRole("button", { name: "Re-scan" }) as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByRole("alert").textContent).toBe("The last scan failed: disk full");
    expect(sourceLine({ ...claude, skipped: 0, unreadable: 0, files: 1 })).toBe("1 session found · 1 new · 1 updated");
  });
});
