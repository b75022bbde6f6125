import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Profile } from "../../ipc";
import type { McpReport } from "../../generated/McpReport";
import type { McpServer } from "../../generated/McpServer";
import { ProfileFailure, type ProfilesApi } from "../../ipc/profiles";
import { profile } from "../../test/fakeIpc";
import { fakeProfilesApi } from "../../test/fakeApis";
import { errorsByField, formFromProfile, formReducer, sameMcpServers, specFromForm } from "./form";
import { ProfilesView } from "./ProfilesView";

afterEach(cleanup);

const server = (over: Partial<McpServer>): McpServer => ({
  name: "notes",
  enabled: true,
  command: null,
  args: [],
  envVars: [],
  url: null,
  bearerTokenEnv: null,
  ...over,
});

const NOTES = server({ name: "notes", command: "/usr/bin/notes-mcp", args: ["--db", "/tmp/notes db"], envVars: ["NOTES_TOKEN", "HOME"] });
const WEB = server({ name: "web", url: "https://mcp.example/x", bearerTokenEnv: "WEB_TOKEN" });

const stored = (over: Partial<Profile> = {}) => profile({ id: "p1", name: "main", mcpServers: [NOTES, WEB], ...over });

const fakeApi = (list: Profile[], over: Partial<ProfilesApi> = {}) => fakeProfilesApi(list, stored(), over);

const workspace = { id: "w1", name: "demo", path: "/w", createdAt: 1 };

const inputs = (label: string) => screen.getAllByLabelText(label) as (HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement)[];
const type = (el: HTMLElement, value: string) => fireEvent.change(el, { target: { value } });

describe("MCP servers in the form state", () => {
  it("round-trips a stored profile's servers", () => {
    expect(specFromForm(formFromProfile(stored())).mcpServers).toEqual([NOTES, WEB]);
    expect(sameMcpServers([NOTES, WEB], formFromProfile(stored()).mcpServers)).toBe(true);
  });

  it("sends only the chosen transport's inputs, trimmed, lists without empties", () => {
    let f = formReducer(formFromProfile(stored({ mcpServers: [] })), { type: "mcpAdd" });
    const key = f.mcpServers[0]!.key;
    f = formReducer(f, { type: "mcpSet", key, patch: { name: " a ", command: " npx ", args: " -y \n\n@x/server ", envVars: " A,B  C,, " } });
    expect(specFromForm(f).mcpServers).toEqual([server({ name: "a", command: "npx", args: ["-y", "@x/server"], envVars: ["A", "B", "C"] })]);
    // Switched to HTTP: the program's inputs stay in the row (switching back loses nothing) but are not sent.
    f = formReducer(f, { type: "mcpSet", key, patch: { transport: "http", url: " https://h/ ", bearerTokenEnv: " " } });
    expect(specFromForm(f).mcpServers).toEqual([server({ name: "a", url: "https://h/" })]);
    expect(sameMcpServers([], f.mcpServers)).toBe(false);
  });

  it("files the core's errors under the server's input, bracketed or not", () => {
    expect(
      errorsByField([
        { field: "mcpServers.0.name", message: "a" },
        { field: "mcpServers[1].url", message: "b" },
      ]),
    ).toEqual({ "mcpServers.0.name": "a", "mcpServers.1.url": "b" });
  });
});

describe("the MCP servers section", () => {
  it("adds a program and an HTTP server and sends them with a new profile", async () => {
    const api = fakeApi([]);
    render(<ProfilesView workspace={workspace} api={api} />);
    const section = await screen.findByRole("group", { name: "MCP servers" });
    fireEvent.change(screen.getByLabelText("Name"), { target: { value: "with tools" } });
    fireEvent.click(within(section).getByRole("button", { name: "Add MCP server" }));
    fireEvent.click(within(section).getByRole("button", { name: "Add MCP server" }));
    // New rows are enabled programs.
    expect(inputs("MCP server transport").map((s) => s.value)).toEqual(["stdio", "stdio"]);
    expect(screen.getAllByRole("checkbox", { name: "Enable MCP server" }).map((c) => (c as HTMLInputElement).checked)).toEqual([true, true]);

    type(inputs("MCP server transport")[1]!, "http");
    type(inputs("MCP server name")[0]!, "notes");
    type(screen.getByLabelText("MCP server command"), " npx ");
    type(screen.getByLabelText("MCP server arguments"), "-y\n@acme/notes-mcp\n");
    type(screen.getByLabelText("MCP server environment variables"), "NOTES_TOKEN, HOME");
    type(inputs("MCP server name")[1]!, "web");
    type(screen.getByLabelText("MCP server URL"), "https://mcp.example/x");
    type(screen.getByLabelText("MCP server token variable"), "WEB_TOKEN");
    // The row's name names its controls.
    fireEvent.click(screen.getByRole("checkbox", { name: "Enable MCP server web" }));
    expect(screen.getByRole("button", { name: "Remove MCP server notes" })).toBeTruthy();
    // Not saved yet: nothing the engine could be asked about.
    expect(within(section).queryByRole("button", { name: "Check MCP servers" })).toBeNull();
    expect(within(section).getByText("Save the profile to check its servers.")).toBeTruthy();

    await act(async () => fireEvent.click(screen.getByRole("button", { name: "Create profile" })));
    expect(api.create).toHaveBeenCalledWith(
      "w1",
      expect.objectContaining({
        name: "with tools",
        mcpServers: [
          server({ name: "notes", command: "npx", args: ["-y", "@acme/notes-mcp"], envVars: ["NOTES_TOKEN", "HOME"] }),
          server({ name: "web", enabled: false, url: "https://mcp.example/x", bearerTokenEnv: "WEB_TOKEN" }),
        ],
      }),
    );
  });

  it("shows a stored profile's servers and saves without the one removed", async () => {
    const api = fakeApi([stored()]);
    render(<ProfilesView workspace={workspace} api={api} />);
    await waitFor(() => expect(inputs("MCP server name").map((i) => i.value)).toEqual(["notes", "web"]));
    expect(inputs("MCP server transport").map((s) => s.value)).toEqual(["stdio", "http"]);
    expect((screen.getByLabelText("MCP server command") as HTMLInputElement).value).toBe("/usr/bin/notes-mcp");
    expect((screen.getByLabelText("MCP server arguments") as HTMLTextAreaElement).value).toBe("--db\n/tmp/notes db");
    expect((screen.getByLabelText("MCP server environment variables") as HTMLInputElement).value).toBe("NOTES_TOKEN, HOME");
    expect((screen.getByLabelText("MCP server URL") as HTMLInputElement).value).toBe("https://mcp.example/x");
    expect((screen.getByLabelText("MCP server token variable") as HTMLInputElement).value).toBe("WEB_TOKEN");
    expect((screen.getByRole("checkbox", { name: "Enable MCP server notes" }) as HTMLInputElement).checked).toBe(true);

    fireEvent.click(screen.getByRole("button", { name: "Remove MCP server notes" }));
    expect(inputs("MCP server name").map((i) => i.value)).toEqual(["web"]);
    // Unsaved: the check would be about the stored servers.
    expect((screen.getByRole("button", { name: "Check MCP servers" }) as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByText("Save the profile to check its servers.")).toBeTruthy();
    await act(async () => fireEvent.click(screen.getByRole("button", { name: "Save profile" })));
    expect(api.update).toHaveBeenCalledWith("p1", expect.objectContaining({ mcpServers: [WEB] }));
  });

  it("marks the input the core's error is about, with its message", async () => {
    const message = 'the MCP server name "my server" is not valid: letters, digits, _ and - (the engines name its tools after it)';
    const url = "the MCP server URL must start with http:// or https://";
    const api = fakeApi([stored()], {
      update: vi.fn(async () => {
        throw new ProfileFailure({
          code: "invalid_input",
          message,
          fields: [
            { field: "mcpServers[0].name", message },
            { field: "mcpServers.1.url", message: url },
          ],
        });
      }),
    });
    render(<ProfilesView workspace={workspace} api={api} />);
    await waitFor(() => expect(inputs("MCP server name")).toHaveLength(2));
    type(inputs("MCP server name")[0]!, "my server");
    await act(async () => fireEvent.click(screen.getByRole("button", { name: "Save profile" })));
    const name = inputs("MCP server name")[0]!;
    await waitFor(() => expect(name.getAttribute("aria-invalid")).toBe("true"));
    expect(name.id).toBe("profile-mcpServers_0_name");
    expect(document.getElementById(name.getAttribute("aria-describedby")!)?.textContent).toBe(message);
    // The first invalid field is brought into view, focused.
    expect(document.activeElement).toBe(name);
    expect(inputs("MCP server name")[1]!.getAttribute("aria-invalid")).toBeNull();
    const web = screen.getByLabelText("MCP server URL");
    expect(web.getAttribute("aria-invalid")).toBe("true");
    expect(document.getElementById(web.getAttribute("aria-describedby")!)?.textContent).toBe(url);
  });

  it("shows an endpoint change the dialog did not confirm on the server it is about", async () => {
    const message = "not saved: the new endpoint was not confirmed in the dialog";
    const api = fakeApi([stored()], {
      update: vi.fn(async () => {
        throw new ProfileFailure({ code: "invalid_input", message, fields: [{ field: "mcpServers.notes", message }] });
      }),
    });
    render(<ProfilesView workspace={workspace} api={api} />);
    const command = await screen.findByLabelText("MCP server command");
    await act(async () => fireEvent.click(screen.getByRole("button", { name: "Save profile" })));
    await waitFor(() => expect(command.getAttribute("aria-invalid")).toBe("true"));
    expect(document.getElementById(command.getAttribute("aria-describedby")!)?.textContent).toBe(message);
  });

  it("checks a saved profile's servers and shows each one's state, error and tools", async () => {
    let answer: (r: McpReport) => void = () => {};
    const report: McpReport = {
      unavailable: null,
      servers: [
        {
          name: "notes",
          state: "connected",
          error: null,
          tools: [
            { name: "note", description: "Append a note" },
            { name: "search", description: "" },
          ],
        },
        { name: "web", state: "failed", error: "connection refused", tools: [] },
        { name: "old", state: "disabled", error: null, tools: [] },
        { name: "login", state: "needs_auth", error: null, tools: [] },
      ],
    };
    const mcpStatus = vi.fn(() => new Promise<McpReport>((resolve) => (answer = resolve)));
    const api = fakeApi([stored()], { mcpStatus });
    render(<ProfilesView workspace={workspace} api={api} />);
    const check = (await screen.findByRole("button", { name: "Check MCP servers" })) as HTMLButtonElement;
    expect(check.disabled).toBe(false);
    expect(screen.queryByText("Save the profile to check its servers.")).toBeNull();
    fireEvent.click(check);
    expect(mcpStatus).toHaveBeenCalledWith("w1", "p1");
    expect(check.disabled).toBe(true);
    expect(screen.getByText("Starting the engine to ask…")).toBeTruthy();
    await act(async () => answer(report));
    expect(screen.queryByText("Starting the engine to ask…")).toBeNull();
    expect(check.disabled).toBe(false);
    const items = within(screen.getByRole("list", { name: "MCP server status" }))
      .getAllByRole("listitem")
      .map((li) => li.textContent);
    expect(items).toEqual([
      "notes: connected · tools: note, search",
      "web: failed — connection refused · no tools",
      "old: disabled · no tools",
      "login: needs login · no tools",
    ]);
    expect(screen.getByText("note").getAttribute("title")).toBe("Append a note");

    // An engine that cannot report: its reason instead of a list.
    mcpStatus.mockImplementation(async () => ({ servers: [], unavailable: "ACP agent gets no MCP servers from Agent Desk: configure them in the agent itself." }));
    await act(async () => fireEvent.click(check));
    expect(await screen.findByText("ACP agent gets no MCP servers from Agent Desk: configure them in the agent itself.")).toBeTruthy();
    expect(screen.queryByRole("list", { name: "MCP server status" })).toBeNull();
  });

  it("says why the servers could not be checked", async () => {
    const api = fakeApi([stored()], {
      mcpStatus: vi.fn(async () => {
        throw { code: "engine_unavailable", message: "codex was not found" };
      }),
    });
    render(<ProfilesView workspace={workspace} api={api} />);
    const check = await screen.findByRole("button", { name: "Check MCP servers" });
    await act(async () => fireEvent.click(check));
    expect((await screen.findByRole("alert")).textContent).toBe("The MCP servers could not be checked: codex was not found");
  });

  it("drops a report once the servers are edited", async () => {
    const api = fakeApi([stored()], {
      mcpStatus: vi.fn(async () => ({ servers: [{ name: "notes", state: "connected" as const, error: null, tools: [] }], unavailable: null })),
    });
    render(<ProfilesView workspace={workspace} api={api} />);
    const check = await screen.findByRole("button", { name: "Check MCP servers" });
    await act(async () => fireEvent.click(check));
    expect(await screen.findByRole("list", { name: "MCP server status" })).toBeTruthy();
    type(screen.getByLabelText("MCP server command"), "/usr/bin/other");
    expect(screen.queryByRole("list", { name: "MCP server status" })).toBeNull();
    expect(screen.getByText("Save the profile to check its servers.")).toBeTruthy();
  });
});
