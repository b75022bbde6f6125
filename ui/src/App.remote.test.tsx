import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { App } from "./App";
import { IpcFailure, type Ipc, type Workspace } from "./ipc";
import { fakeIpc as baseIpc } from "./test/fakeIpc";

afterEach(cleanup);

// The host side as the core answers it: folders listed over SSH, a location checked there.
function remoteIpc(): Ipc & { added: string[] } {
  let items: Workspace[] = [];
  const added: string[] = [];
  const tree: Record<string, string[]> = { "/home/me": ["proj", ".config"], "/home/me/proj": ["src"] };
  return Object.assign(
    {
      ...baseIpc(),
      listWorkspaces: async () => items,
      listRemoteFolders: vi.fn(async (host: string, path: string | null) => {
        if (host === "nowhere") throw new IpcFailure({ code: "remote", message: "nowhere: cannot find the host nowhere (name lookup failed)" });
        const here = path ?? "/home/me";
        return { host, path: here, parent: here === "/" ? null : here.slice(0, here.lastIndexOf("/")) || "/", folders: tree[here] ?? [], truncated: false, repository: here === "/home/me/proj" };
      }),
      addWorkspace: async (location: string) => {
        added.push(location);
        const [host, path] = [location.slice(0, location.indexOf(":/")), location.slice(location.indexOf(":/") + 1)];
        if (path === "/home/me") throw new IpcFailure({ code: "invalid_input", message: `${location} is your home folder on ${host}` });
        const w = { id: location, name: path.split("/").pop() ?? path, path, host, createdAt: 1 };
        items = [...items, w];
        return w;
      },
    },
    { added },
  );
}

describe("Add remote workspace", () => {
  it("browses the host's folders, refuses in the dialog, adds and shows the host", async () => {
    const ipc = remoteIpc();
    render(<App ipc={ipc} />);
    await screen.findByTestId("no-workspaces");
    fireEvent.click(screen.getByRole("button", { name: "Add remote workspace…" }));
    const dialog = screen.getByRole("dialog", { name: "Add remote workspace" });
    const host = within(dialog).getByRole("textbox", { name: "Host" });
    expect(document.activeElement).toBe(host);
    fireEvent.change(host, { target: { value: "nowhere" } });
    await act(async () => fireEvent.click(within(dialog).getByRole("button", { name: "Browse" })));
    expect((await within(dialog).findByRole("alert")).textContent).toContain("name lookup failed");

    fireEvent.change(host, { target: { value: "me@devbox" } });
    await act(async () => fireEvent.click(within(dialog).getByRole("button", { name: "Browse" })));
    const list = await within(dialog).findByRole("list", { name: "Folders on me@devbox" });
    expect(within(list).getAllByRole("button").map((b) => b.textContent)).toEqual(["proj", ".config"]);
    expect(within(dialog).queryByRole("alert")).toBeNull();
    // The home folder itself is refused by the core: the refusal stays in the dialog.
    await act(async () => fireEvent.click(within(dialog).getByRole("button", { name: "Add workspace" })));
    expect((await within(dialog).findByRole("alert")).textContent).toContain("is your home folder");
    await act(async () => fireEvent.click(within(list).getByRole("button", { name: "proj" })));
    await waitFor(() => expect(within(dialog).getByRole("textbox", { name: "Folder on the host" })).toHaveProperty("value", "/home/me/proj"));
    expect(within(dialog).getByRole("button", { name: "Parent folder" })).not.toHaveProperty("disabled", true);
    await act(async () => fireEvent.click(within(dialog).getByRole("button", { name: "Add workspace" })));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(ipc.added).toEqual(["me@devbox:/home/me", "me@devbox:/home/me/proj"]);
    const item = await screen.findByTestId("workspace-item");
    expect(within(item).getByTestId("workspace-path").textContent).toBe("me@devbox:/home/me/proj");
    expect(within(item).getByRole("button", { name: /proj on me@devbox/ })).toBeTruthy();
    // No worktrees on a host (yet): the choice is not offered.
    expect(within(item).queryByRole("button", { name: /New session in a worktree/ })).toBeNull();
  });

  it("closes on Cancel and Escape without adding", async () => {
    const ipc = remoteIpc();
    render(<App ipc={ipc} />);
    await screen.findByTestId("no-workspaces");
    fireEvent.click(screen.getByRole("button", { name: "Add remote workspace…" }));
    fireEvent.click(within(screen.getByRole("dialog")).getByRole("button", { name: "Cancel" }));
    expect(screen.queryByRole("dialog")).toBeNull();
    fireEvent.click(screen.getByRole("button", { name: "Add remote workspace…" }));
    fireEvent.keyDown(screen.getByRole("textbox", { name: "Host" }), { key: "Escape" });
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(ipc.added).toEqual([]);
  });
});
