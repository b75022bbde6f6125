// A session's worktree review and the sidebar's worktree choice, over a fake worktree API.
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { IpcFailure } from "../../ipc";
import type { ChangedFile, WorkspaceGit, WorktreeApi, WorktreeStatus } from "../../ipc/worktrees";
import { session } from "../../test/fakeIpc";
import { BranchLine } from "./BranchLine";
import { WorktreeChoice } from "./WorktreeChoice";
import { WorktreeReview } from "./WorktreeReview";

afterEach(cleanup);

const file = (path: string, over: Partial<ChangedFile> = {}): ChangedFile => ({
  path,
  oldPath: null,
  state: "modified",
  binary: false,
  submodule: false,
  added: 2,
  removed: 1,
  ...over,
});

const status = (over: Partial<WorktreeStatus> = {}): WorktreeStatus => ({
  sessionId: "s1",
  path: "/data/worktrees/repo-1/s1",
  branch: "agentdesk/fix-it-1234",
  base: "main",
  missing: false,
  uncommitted: [file("src/a.rs"), file("logo.png", { state: "added", binary: true, added: null, removed: null })],
  committed: [file("src/new.rs", { state: "added", added: 3, removed: 0 })],
  commits: [{ sha: "0123456789abcdef", summary: "Add new.rs" }],
  behind: 1,
  unreadySubmodules: [],
  ...over,
});

function fakeApi(over: Partial<WorktreeApi> = {}): WorktreeApi {
  return {
    workspaceGit: vi.fn(),
    setIsolateSessions: vi.fn(async () => {}),
    status: vi.fn(async () => status()),
    diff: vi.fn(async (_s: string, f: ChangedFile, committed: boolean) => ({
      path: f.path,
      committed,
      binary: f.binary,
      diff: f.binary ? "" : `diff --git a/${f.path} b/${f.path}\n--- a/${f.path}\n+++ b/${f.path}\n@@ -1 +1 @@\n-old line\n+new line\n`,
    })),
    commit: vi.fn(async () => status({ uncommitted: [] })),
    discard: vi.fn(async () => status({ uncommitted: [file("logo.png", { state: "added", binary: true })] })),
    merge: vi.fn(async () => ({ base: "main", fastForward: true, commit: "abc", commits: 1 })),
    remove: vi.fn(async () => ({ session: session({ worktree: null, branch: null, baseBranch: null }), keptBranch: "agentdesk/fix-it-1234" })),
    recreate: vi.fn(async () => status()),
    forget: vi.fn(async () => session({ worktree: null })),
    openFolder: vi.fn(async () => {}),
    ...over,
  } as unknown as WorktreeApi;
}

const wtSession = session({ title: "Fix it", worktree: "/data/worktrees/repo-1/s1", branch: "agentdesk/fix-it-1234", baseBranch: "main" });

describe("WorktreeReview", () => {
  it("shows uncommitted and committed changes apart, with counts, binary named, diffs on demand", async () => {
    const api = fakeApi();
    render(<WorktreeReview session={wtSession} running={false} api={api} onSessionChanged={() => {}} onError={() => {}} />);
    expect(await screen.findByRole("heading", { name: "Uncommitted changes (2)" })).toBeTruthy();
    expect(screen.getByRole("heading", { name: "Committed changes (1)" })).toBeTruthy();
    expect(screen.getByText(/1 commit ahead · 1 behind/)).toBeTruthy();
    expect(screen.getByText("binary")).toBeTruthy();
    expect(screen.getByText("+2 −1")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "src/a.rs" }));
    expect(await screen.findByText("new line")).toBeTruthy();
    expect(api.diff).toHaveBeenCalledWith("s1", expect.objectContaining({ path: "src/a.rs" }), false);
    fireEvent.click(screen.getByRole("button", { name: "logo.png" }));
    expect(await screen.findByText("Binary file — not shown.")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "src/new.rs" }));
    await waitFor(() => expect(api.diff).toHaveBeenCalledWith("s1", expect.objectContaining({ path: "src/new.rs" }), true));
    expect(screen.getByRole("list", { name: "Commits" }).textContent).toContain("Add new.rs");
  });

  it("commits the selected files with the title as message, editable", async () => {
    const api = fakeApi();
    render(<WorktreeReview session={wtSession} running={false} api={api} onSessionChanged={() => {}} onError={() => {}} />);
    const box = await screen.findByRole("checkbox", { name: "Include src/a.rs in the commit" });
    expect((screen.getByLabelText("Commit message") as HTMLTextAreaElement).value).toBe("Fix it");
    expect(screen.getByText("all 2 files")).toBeTruthy();
    fireEvent.click(box);
    expect(screen.getByText("1 selected file")).toBeTruthy();
    fireEvent.change(screen.getByLabelText("Commit message"), { target: { value: "Fix it properly" } });
    fireEvent.click(screen.getByRole("button", { name: "Commit" }));
    await waitFor(() => expect(api.commit).toHaveBeenCalledWith("s1", "Fix it properly", ["src/a.rs"]));
    expect(await screen.findByRole("status")).toBeTruthy();
    expect(screen.getByRole("heading", { name: "Uncommitted changes (0)" })).toBeTruthy();
  });

  it("takes the title the session gets as the message, unless one was typed", async () => {
    const api = fakeApi();
    const untitled = { ...wtSession, title: "" };
    const { rerender } = render(<WorktreeReview session={untitled} running={false} api={api} onSessionChanged={() => {}} onError={() => {}} />);
    const box = (await screen.findByLabelText("Commit message")) as HTMLTextAreaElement;
    expect(box.value).toBe("");
    rerender(<WorktreeReview session={{ ...untitled, title: "Fix it" }} running={false} api={api} onSessionChanged={() => {}} onError={() => {}} />);
    expect(box.value).toBe("Fix it");
    fireEvent.change(box, { target: { value: "Mine" } });
    rerender(<WorktreeReview session={{ ...untitled, title: "Renamed" }} running={false} api={api} onSessionChanged={() => {}} onError={() => {}} />);
    expect(box.value).toBe("Mine");
  });

  it("discards a file only after a confirm that names it", async () => {
    const api = fakeApi();
    render(<WorktreeReview session={wtSession} running={false} api={api} onSessionChanged={() => {}} onError={() => {}} />);
    fireEvent.click(await screen.findByRole("button", { name: "Discard changes to src/a.rs" }));
    const dialog = screen.getByRole("alertdialog", { name: "Discard the changes to src/a.rs?" });
    expect(api.discard).not.toHaveBeenCalled();
    fireEvent.click(within(dialog).getByRole("button", { name: "Discard changes" }));
    await waitFor(() => expect(api.discard).toHaveBeenCalledWith("s1", "src/a.rs"));
  });

  it("reports a merge conflict with its files, and merges when clean", async () => {
    const conflict = new IpcFailure({ code: "merge_conflict", message: "merging agentdesk/fix-it-1234 into main would conflict in README.md: nothing was changed" });
    const api = fakeApi({ status: vi.fn(async () => status({ uncommitted: [] })), merge: vi.fn().mockRejectedValueOnce(conflict).mockResolvedValueOnce({ base: "main", fastForward: false, commit: "abc", commits: 1 }) });
    render(<WorktreeReview session={wtSession} running={false} api={api} onSessionChanged={() => {}} onError={() => {}} />);
    fireEvent.click(await screen.findByRole("button", { name: "Merge into main" }));
    expect((await screen.findByRole("alert")).textContent).toContain("would conflict in README.md");
    fireEvent.click(screen.getByRole("button", { name: "Merge into main" }));
    expect((await screen.findByRole("status")).textContent).toBe("Merged 1 commit into main (merge commit).");
  });

  it("does not merge with uncommitted changes or during a run", async () => {
    const api = fakeApi();
    const { rerender } = render(<WorktreeReview session={wtSession} running={false} api={api} onSessionChanged={() => {}} onError={() => {}} />);
    const merge = await screen.findByRole("button", { name: "Merge into main" });
    expect((merge as HTMLButtonElement).disabled).toBe(true);
    expect(merge.getAttribute("title")).toBe("Commit or discard the uncommitted changes first");
    rerender(<WorktreeReview session={wtSession} running api={api} onSessionChanged={() => {}} onError={() => {}} />);
    expect((screen.getByRole("button", { name: "Delete worktree" }) as HTMLButtonElement).disabled).toBe(true);
    // The run's end reads the worktree again.
    const calls = (api.status as ReturnType<typeof vi.fn>).mock.calls.length;
    rerender(<WorktreeReview session={wtSession} running={false} api={api} onSessionChanged={() => {}} onError={() => {}} />);
    await waitFor(() => expect((api.status as ReturnType<typeof vi.fn>).mock.calls.length).toBe(calls + 1));
  });

  it("deletes the worktree after a confirm that lists the uncommitted files and commits", async () => {
    const api = fakeApi();
    const changed = vi.fn();
    render(<WorktreeReview session={wtSession} running={false} api={api} onSessionChanged={changed} onError={() => {}} />);
    fireEvent.click(await screen.findByRole("button", { name: "Delete worktree" }));
    const dialog = screen.getByRole("alertdialog", { name: "Delete the worktree of agentdesk/fix-it-1234?" });
    expect(dialog.textContent).toContain("src/a.rs");
    expect(dialog.textContent).toContain("logo.png");
    expect(dialog.textContent).toContain("1 commit not in main");
    fireEvent.click(within(dialog).getByRole("button", { name: "Delete worktree" }));
    await waitFor(() => expect(api.remove).toHaveBeenCalledWith("s1", true));
    expect(changed).toHaveBeenCalledWith(expect.objectContaining({ worktree: null }));
  });

  it("names submodules that are not checked out in the worktree, with what to run", async () => {
    const api = fakeApi({ status: vi.fn(async () => status({ unreadySubmodules: ["vendor/lib"] })) });
    render(<WorktreeReview session={wtSession} running={false} api={api} onSessionChanged={() => {}} onError={() => {}} />);
    const note = await screen.findByTestId("unready-submodules");
    expect(note.textContent).toContain("vendor/lib");
    expect(note.textContent).toContain("git submodule update --init");
  });

  it("offers to recreate or forget a folder deleted outside the app", async () => {
    const api = fakeApi({ status: vi.fn(async () => status({ missing: true, uncommitted: [] })) });
    const changed = vi.fn();
    render(<WorktreeReview session={wtSession} running={false} api={api} onSessionChanged={changed} onError={() => {}} />);
    expect((await screen.findByRole("alert")).textContent).toContain("was deleted outside Agent Desk");
    fireEvent.click(screen.getByRole("button", { name: "Forget worktree" }));
    await waitFor(() => expect(changed).toHaveBeenCalled());
    fireEvent.click(screen.getByRole("button", { name: "Recreate worktree" }));
    await waitFor(() => expect(api.recreate).toHaveBeenCalledWith("s1"));
  });
});

describe("WorktreeChoice", () => {
  const git = (over: Partial<WorkspaceGit> = {}): WorkspaceGit => ({
    unavailable: null,
    currentBranch: "main",
    branches: ["main", "release"],
    uncommitted: ["README.md"],
    isolateNewSessions: false,
    ...over,
  });

  it("is disabled with the reason in a folder that is not a repository", async () => {
    const api = fakeApi({ workspaceGit: vi.fn(async () => git({ unavailable: "/w is not a git repository", currentBranch: null, branches: [] })) });
    render(<WorktreeChoice workspaceId="w1" workspaceName="w" api={api} onStart={() => {}} onCancel={() => {}} onError={() => {}} />);
    expect((await screen.findByTestId("worktree-unavailable")).textContent).toContain("/w is not a git repository");
    expect((screen.getByRole("button", { name: "Start session in a worktree" }) as HTMLButtonElement).disabled).toBe(true);
  });

  it("starts from the picked base, says what stays behind, and keeps the workspace setting", async () => {
    const api = fakeApi({ workspaceGit: vi.fn(async () => git()) });
    const start = vi.fn();
    render(<WorktreeChoice workspaceId="w1" workspaceName="w" api={api} onStart={start} onCancel={() => {}} onError={() => {}} />);
    const select = await screen.findByRole("combobox", { name: "Base branch" });
    expect(screen.getByText(/1 uncommitted file stays in the workspace folder/)).toBeTruthy();
    fireEvent.change(select, { target: { value: "release" } });
    fireEvent.click(screen.getByRole("checkbox", { name: "Isolate new sessions in worktrees" }));
    expect(api.setIsolateSessions).toHaveBeenCalledWith("w1", true);
    fireEvent.click(screen.getByRole("button", { name: "Start session in a worktree" }));
    expect(start).toHaveBeenCalledWith({ base: "release", nameHint: null });
  });
});

describe("BranchLine", () => {
  it("follows what the review reads (a commit or merge shows at once)", async () => {
    const api = fakeApi({ status: vi.fn(async () => status()) });
    render(
      <>
        <BranchLine session={wtSession} running={false} api={api} />
        <WorktreeReview session={wtSession} running={false} api={fakeApi({ status: vi.fn(async () => status()), merge: vi.fn(async () => ({ base: "main", fastForward: true, commit: "c", commits: 1 })) })} onSessionChanged={() => {}} onError={() => {}} />
      </>,
    );
    expect(await screen.findByText(/3 files changed/)).toBeTruthy();
    const merged = fakeApi({ status: vi.fn(async () => status({ uncommitted: [], committed: [], commits: [] })) });
    cleanup();
    render(
      <>
        <BranchLine session={wtSession} running={false} api={api} />
        <WorktreeReview session={wtSession} running={false} api={merged} onSessionChanged={() => {}} onError={() => {}} />
      </>,
    );
    expect(await screen.findByText(/0 files changed/)).toBeTruthy();
    expect(screen.getByText("No commits that main does not have.")).toBeTruthy();
  });

  it("names the branch and counts the changed files once each", async () => {
    const api = fakeApi({ status: vi.fn(async () => status({ uncommitted: [file("a"), file("b")], committed: [file("a"), file("c")] })) });
    render(<BranchLine session={wtSession} running={false} api={api} />);
    expect((await screen.findByText(/3 files changed/)).textContent).toBe("3 files changed · branch agentdesk/fix-it-1234");
    await act(async () => {});
  });
});
