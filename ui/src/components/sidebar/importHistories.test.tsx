// The sidebar's "Import terminal sessions" and the origin of imported sessions.
import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { IpcFailure, type ImportProgress, type ImportReport } from "../../ipc";
import { ActivityStore } from "../../state/activity";
import { session } from "../../test/fakeIpc";
import { ImportHistories, summary } from "./ImportHistories";
import { SessionList } from "./SessionList";

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

describe("ImportHistories", () => {
  it("shows progress while importing, then what it did, and reloads the lists", async () => {
    let hear: (p: ImportProgress) => void = () => {};
    let finish: (r: ImportReport) => void = () => {};
    const importHistories = vi.fn(
      (on: (p: ImportProgress) => void) =>
        new Promise<ImportReport>((resolve) => {
          hear = on;
          finish = resolve;
        }),
    );
    const onImported = vi.fn();
    render(<ImportHistories ipc={{ importHistories }} disabled={false} onImported={onImported} onError={vi.fn()} />);
    const button = screen.getByRole("button", { name: "Import terminal sessions" }) as HTMLButtonElement;
    fireEvent.click(button);
    expect(button.disabled).toBe(true);
    act(() => hear({ done: 1, total: 4 }));
    const bar = screen.getByRole("progressbar", { name: "Import progress" }) as HTMLProgressElement;
    expect([bar.value, bar.max]).toEqual([1, 4]);
    await act(async () => finish(report({ withoutWorkspace: [{ folder: "/tmp/x", sessions: 2 }] })));
    expect(screen.getByRole("status").textContent).toBe(
      "Imported: 2 new, 1 updated; 2 in folders that are not workspaces (add them to import those).",
    );
    expect(screen.queryByRole("progressbar")).toBeNull();
    expect(onImported).toHaveBeenCalledTimes(1);
    expect(button.disabled).toBe(false);
  });

  it("reloads nothing when nothing changed, and reports a failure", async () => {
    const onImported = vi.fn();
    const onError = vi.fn();
    const importHistories = vi
      .fn()
      .mockResolvedValueOnce(report({ sessionsAdded: 0, sessionsUpdated: 0, unchanged: 3 }))
      .mockRejectedValueOnce(new IpcFailure({ code: "storage", message: "the disk is full" }));
    render(<ImportHistories ipc={{ importHistories }} disabled={false} onImported={onImported} onError={onError} />);
    const button = screen.getByRole("button", { name: "Import terminal sessions" }) as HTMLButtonElement;
    fireEvent.click(button);
    await waitFor(() => expect(screen.getByRole("status").textContent).toBe("Imported: 0 new, 0 updated."));
    expect(onImported).not.toHaveBeenCalled();
    fireEvent.click(button);
    await waitFor(() => expect(onError).toHaveBeenCalledWith({ code: "storage", message: "the disk is full" }));
  });

  it("sums every source", () => {
    const two = report();
    const first = two.sources[0]!;
    two.sources.push({ ...first, origin: "codex-cli", sessionsAdded: 1, sessionsUpdated: 0 });
    expect(summary(two)).toBe("Imported: 3 new, 1 updated.");
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
