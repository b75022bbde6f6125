import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { App } from "./App";
import { IpcFailure, type Ipc, type Workspace } from "./ipc";
import { fakeIpc as baseIpc } from "./test/fakeIpc";

afterEach(cleanup);

// An in-memory stand-in for the Rust side, for component behaviour only; the real path
// (UI → Rust → SQLite) is covered by the WebDriver E2E test in tests/.
function fakeIpc(initial: Workspace[] = [], startupError: { code: "storage"; message: string } | null = null): Ipc {
  let items = [...initial];
  return {
    ...baseIpc(),
    appInfo: async () => ({ version: "0.0.0", dataDir: "/d", databasePath: "/d/db", logDir: "/d/logs", startupError }),
    listWorkspaces: async () => items,
    addWorkspace: async (path: string) => {
      if (!path.startsWith("/")) throw new IpcFailure({ code: "invalid_input", message: `${path} is not an absolute path` });
      const w = { id: path, name: path.split("/").pop() ?? path, path, createdAt: 1 };
      items = [...items, w];
      return w;
    },
    removeWorkspace: async (id: string) => {
      items = items.filter((w) => w.id !== id);
      return null;
    },
    pickFolder: async () => null,
  };
}

describe("App", () => {
  it("adds a typed path and lists it", async () => {
    render(<App ipc={fakeIpc()} />);
    await screen.findByTestId("no-workspaces");
    fireEvent.change(screen.getByTestId("workspace-path-input"), { target: { value: "/home/me/project" } });
    await act(async () => {
      fireEvent.click(screen.getByTestId("add-workspace-submit"));
    });
    await waitFor(() => expect(screen.getAllByTestId("workspace-item")).toHaveLength(1));
    expect(screen.getByTestId("selected-workspace-path").textContent).toBe("/home/me/project");
    expect((screen.getByTestId("workspace-path-input") as HTMLInputElement).value).toBe("");
  });

  it("shows IPC errors in the banner and keeps the typed text", async () => {
    render(<App ipc={fakeIpc()} />);
    await screen.findByTestId("no-workspaces");
    fireEvent.change(screen.getByTestId("workspace-path-input"), { target: { value: "relative" } });
    await act(async () => {
      fireEvent.click(screen.getByTestId("add-workspace-submit"));
    });
    const banner = await screen.findByTestId("error-banner");
    expect(banner.textContent).toContain("relative is not an absolute path");
    expect((screen.getByTestId("workspace-path-input") as HTMLInputElement).value).toBe("relative");
  });

  it("shows a broken store instead of a blank window", async () => {
    render(<App ipc={fakeIpc([], { code: "storage", message: "the database is corrupt" })} />);
    const banner = await screen.findByTestId("error-banner");
    expect(banner.textContent).toContain("the database is corrupt");
    expect((screen.getByTestId("workspace-path-input") as HTMLInputElement).disabled).toBe(true);
  });

  it("removes a workspace", async () => {
    render(<App ipc={fakeIpc([{ id: "1", name: "one", path: "/one", createdAt: 1 }])} />);
    await screen.findByTestId("workspace-list");
    await act(async () => {
      fireEvent.click(screen.getByTestId("remove-workspace"));
    });
    await screen.findByTestId("no-workspaces");
  });
});
