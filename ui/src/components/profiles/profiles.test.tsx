import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Profile } from "../../ipc";
import type { ModelCatalog } from "../../generated/ModelCatalog";
import { profile } from "../../test/fakeIpc";
import { ProfileFailure, toProfileError, type ProfilesApi } from "../../ipc/profiles";
import { fakeProfilesApi } from "../../test/fakeApis";
import { errorsByField, fieldKey, formFromProfile, formReducer, SECRET_MASK, specFromForm } from "./form";
import { ProfilesView } from "./ProfilesView";

afterEach(cleanup);

const stored = (over: Partial<Profile> = {}) =>
  profile({
    id: "p1",
    name: "main",
    model: "gpt-5.5",
    env: { PLAIN: "visible", TOKEN: SECRET_MASK },
    secretEnv: ["TOKEN"],
    engineOptions: { maxTurns: 3, configOverrides: { "x.y": 1 }, somethingNew: [1], planMode: true },
    approvalRules: [{ kind: "command", tool: null, commandPrefix: "git status", action: "allow" }],
    approvalTimeoutSecs: 120,
    ...over,
  });

describe("profile form state", () => {
  it("round-trips every field, keeps unknown engine options and sends a stored secret as the mask", () => {
    const p = stored();
    const spec = specFromForm(formFromProfile(p));
    expect(spec.env).toEqual({ PLAIN: "visible", TOKEN: SECRET_MASK });
    expect(spec.secretEnv).toEqual(["TOKEN"]);
    expect(spec.engineOptions).toEqual({ maxTurns: 3, configOverrides: { "x.y": "1" }, somethingNew: [1], planMode: true });
    expect(spec.approvalRules).toEqual(p.approvalRules);
    expect(spec.approvalTimeoutSecs).toBe(120);
    expect(spec.model).toBe("gpt-5.5");
  });

  it("turns text boxes into lists and empty inputs into 'not set'", () => {
    let f = formFromProfile(stored());
    f = formReducer(f, { type: "set", patch: { extraDirs: " /a \n\n/b", allowedTools: "Read\nGrep", model: " ", approvalTimeoutSecs: "", maxTurns: "" } });
    const spec = specFromForm(f);
    expect(spec.extraDirs).toEqual(["/a", "/b"]);
    expect(spec.allowedTools).toEqual(["Read", "Grep"]);
    expect(spec.model).toBeNull();
    expect(spec.approvalTimeoutSecs).toBeNull();
    expect(spec.engineOptions).not.toHaveProperty("maxTurns");
    // Not validated here: what the core must judge reaches it (a negative deadline as 0).
    f = formReducer(f, { type: "set", patch: { approvalTimeoutSecs: "-5", maxTurns: "abc" } });
    expect(specFromForm(f).approvalTimeoutSecs).toBe(0);
    expect(specFromForm(f).engineOptions.maxTurns).toBe("abc");
  });

  it("un-marking a stored secret clears the mask instead of saving it as a value", () => {
    let f = formFromProfile(stored());
    const token = f.env.find((r) => r.name === "TOKEN")!;
    expect(token).toMatchObject({ secret: true, stored: true, value: SECRET_MASK });
    f = formReducer(f, { type: "envSet", key: token.key, patch: { secret: false } });
    expect(f.env.find((r) => r.key === token.key)).toMatchObject({ secret: false, stored: false, value: "" });
    expect(specFromForm(f).env.TOKEN).toBe("");
  });

  it("adds a new rule as a rule about shell commands", () => {
    const f = formReducer(formFromProfile(stored({ approvalRules: [] })), { type: "ruleAdd" });
    expect(f.rules).toMatchObject([{ kind: "command", tool: "", commandPrefix: "", action: "allow" }]);
    expect(specFromForm(f).approvalRules).toEqual([{ kind: "command", tool: null, commandPrefix: null, action: "allow" }]);
  });

  it("setting sources start from the default and toggle in a stable order", () => {
    let f = formFromProfile(stored({ engine: "claude" }));
    expect(f.settingSources).toBeNull();
    f = formReducer(f, { type: "toggleSource", source: "project" });
    expect(f.settingSources).toEqual(["user", "project"]);
    expect(specFromForm(f).engineOptions.settingSources).toEqual(["user", "project"]);
  });

  it("files the core's errors under the input they are about", () => {
    expect(fieldKey("extraDirs.2")).toBe("extraDirs");
    expect(fieldKey("engineOptions.maxTurns")).toBe("engineOptions.maxTurns");
    expect(fieldKey("engineOptions.configOverrides.a b")).toBe("engineOptions.configOverrides.a b");
    expect(fieldKey("env.TOKEN")).toBe("env.TOKEN");
    expect(
      errorsByField([
        { field: "extraDirs.0", message: "a" },
        { field: "extraDirs.1", message: "b" },
      ]),
    ).toEqual({ extraDirs: "a; b" });
  });

  it("keeps the field errors of a rejected command", () => {
    const raw = { code: "invalid_input", message: "bad", fields: [{ field: "baseUrl", message: "bad" }, { nope: 1 }] };
    expect(toProfileError(raw)).toEqual({ code: "invalid_input", message: "bad", fields: [{ field: "baseUrl", message: "bad" }] });
  });
});

const CATALOG: ModelCatalog = {
  unavailable: null,
  models: [
    { id: "gpt-5.5", displayName: "GPT-5.5", description: "Frontier agentic coding", isDefault: true, efforts: ["low", "medium", "high"], defaultEffort: "medium" },
    { id: "gpt-5.4-mini", displayName: "GPT-5.4 mini", description: "Fast", isDefault: false, efforts: [], defaultEffort: null },
  ],
};

const fakeApi = (list: Profile[], over: Partial<ProfilesApi> = {}) => fakeProfilesApi(list, stored(), over);

const workspace = { id: "w1", name: "demo", path: "/w", createdAt: 1 };

describe("ProfilesView", () => {
  it("shows no form to type into until the profiles are in, then the default one's values", async () => {
    let release: (list: Profile[]) => void = () => {};
    const pending = new Promise<Profile[]>((resolve) => (release = resolve));
    const api = fakeApi([], { list: vi.fn(() => pending) });
    render(<ProfilesView workspace={workspace} api={api} />);
    // Typed into an empty form now, a value would be overwritten when the list arrives.
    expect(screen.queryByLabelText("Model")).toBeNull();
    expect(screen.queryByRole("button", { name: "Create profile" })).toBeNull();
    await act(async () => release([stored()]));
    expect(((await screen.findByLabelText("Model")) as HTMLInputElement).value).toBe("gpt-5.5");
  });

  it("says why when the profiles cannot be read", async () => {
    const api = fakeApi([], {
      list: vi.fn(async () => {
        throw new ProfileFailure({ code: "storage", message: "the database is locked", fields: [] });
      }),
    });
    render(<ProfilesView workspace={workspace} api={api} />);
    expect((await screen.findByRole("alert")).textContent).toBe("the database is locked");
    expect(screen.queryByLabelText("Model")).toBeNull();
  });

  it("shows a saved secret masked, as a password, and saves the mask back untouched", async () => {
    const api = fakeApi([stored()]);
    render(<ProfilesView workspace={workspace} api={api} />);
    const value = (await screen.findByLabelText("Value of TOKEN")) as HTMLInputElement;
    expect(value.type).toBe("password");
    expect(value.value).toBe(SECRET_MASK);
    expect((screen.getByLabelText("Value of PLAIN") as HTMLInputElement).type).toBe("text");
    fireEvent.change(screen.getByLabelText("Model"), { target: { value: "gpt-5.5-mini" } });
    await act(async () => fireEvent.click(screen.getByRole("button", { name: "Save profile" })));
    expect(api.update).toHaveBeenCalledWith("p1", expect.objectContaining({ model: "gpt-5.5-mini", env: { PLAIN: "visible", TOKEN: SECRET_MASK } }));
    await waitFor(() => expect(screen.getByRole("status").textContent).toBe("Saved."));
  });

  it("shows the core's message next to the field it is about", async () => {
    const message = 'the base URL "htp://x" is malformed: it must start with http:// or https://';
    const api = fakeApi([stored()], {
      update: vi.fn(async () => {
        throw new ProfileFailure({ code: "invalid_input", message, fields: [{ field: "baseUrl", message }] });
      }),
    });
    render(<ProfilesView workspace={workspace} api={api} />);
    const url = await screen.findByLabelText("Base URL");
    fireEvent.change(url, { target: { value: "htp://x" } });
    await act(async () => fireEvent.click(screen.getByRole("button", { name: "Save profile" })));
    await waitFor(() => expect(url.getAttribute("aria-invalid")).toBe("true"));
    // Focused, so a field far above the Save button comes into view with its message.
    expect(document.activeElement).toBe(url);
    const describedBy = url.getAttribute("aria-describedby")!;
    expect(document.getElementById(describedBy)?.textContent).toBe(message);
    expect(screen.getByRole("status").textContent).toBe("");
  });

  it("adds rules of kind Command and says that rules are not a sandbox", async () => {
    const api = fakeApi([stored()]);
    render(<ProfilesView workspace={workspace} api={api} />);
    const add = await screen.findByRole("button", { name: "Add rule" });
    await act(async () => fireEvent.click(add));
    expect((screen.getByLabelText("Rule 2 kind") as HTMLSelectElement).value).toBe("command");
    const rules = screen.getByRole("group", { name: "Approval rules" });
    const note = within(rules).getByRole("note").textContent ?? "";
    expect(note).toContain("Rules are not a sandbox.");
    expect(note).toContain("is asked instead of approved");
    expect(rules.textContent).toContain("A command prefix applies to shell commands only");
    fireEvent.change(screen.getByLabelText("Rule 2 command prefix"), { target: { value: "curl" } });
    fireEvent.change(screen.getByLabelText("Rule 2 action"), { target: { value: "deny" } });
    await act(async () => fireEvent.click(screen.getByRole("button", { name: "Save profile" })));
    expect(api.update).toHaveBeenCalledWith(
      "p1",
      expect.objectContaining({
        approvalRules: [
          { kind: "command", tool: null, commandPrefix: "git status", action: "allow" },
          { kind: "command", tool: null, commandPrefix: "curl", action: "deny" },
        ],
      }),
    );
  });

  it("lists the registry's engines and edits an ACP agent's preset, command and arguments", async () => {
    const api = fakeApi([stored()]);
    render(<ProfilesView workspace={workspace} api={api} />);
    const engine = (await screen.findByLabelText("Engine")) as HTMLSelectElement;
    await waitFor(() => expect(engine.options.length).toBe(3));
    expect([...engine.options].map((o) => o.textContent)).toEqual(["Codex", "Claude Code", "ACP agent"]);
    fireEvent.change(engine, { target: { value: "acp" } });
    const options = screen.getByRole("group", { name: "ACP agent options" });
    // A custom agent: the editor says plainly that it may not ask.
    const notes = () => within(options).queryAllByRole("note").map((n) => n.textContent ?? "");
    expect(notes().some((n) => n.includes("cannot make another agent ask before acting"))).toBe(true);
    fireEvent.change(screen.getByLabelText("Agent"), { target: { value: "opencode" } });
    expect(notes().some((n) => n.includes("cannot make another agent ask"))).toBe(false);
    fireEvent.change(screen.getByLabelText("Command"), { target: { value: "/opt/opencode" } });
    fireEvent.change(screen.getByLabelText("Arguments (one per line)"), { target: { value: "--print-logs\n\n--x" } });
    await act(async () => fireEvent.click(screen.getByRole("button", { name: "Save profile" })));
    expect(api.update).toHaveBeenCalledWith(
      "p1",
      expect.objectContaining({
        engine: "acp",
        engineOptions: expect.objectContaining({ preset: "opencode", command: "/opt/opencode", args: ["--print-logs", "--x"] }),
      }),
    );
  });

  it("deletes only after a confirmation that names the profile", async () => {
    const api = fakeApi([stored(), stored({ id: "p2", name: "other", isDefault: false })]);
    render(<ProfilesView workspace={workspace} api={api} />);
    const del = await screen.findByRole("button", { name: "Delete…" });
    await act(async () => fireEvent.click(del));
    expect(api.remove).not.toHaveBeenCalled();
    const dialog = screen.getByRole("alertdialog");
    expect(dialog.textContent).toContain("Delete the profile “main”?");
    expect(dialog.textContent).toContain("Its settings and saved secrets are lost");
    expect(dialog.textContent).toContain("another profile becomes the default");
    await act(async () => fireEvent.click(within(dialog).getByRole("button", { name: "Delete profile" })));
    expect(api.remove).toHaveBeenCalledWith("p1");
  });

  it("sets the default and duplicates through the core", async () => {
    const copy = stored({ id: "p3", name: "main (copy)", isDefault: false });
    const list = [stored(), stored({ id: "p2", name: "other", isDefault: false })];
    const api = fakeApi(list, { duplicate: vi.fn(async () => copy) });
    render(<ProfilesView workspace={workspace} api={api} />);
    expect((await screen.findByRole<HTMLButtonElement>("button", { name: "Set as default" })).disabled).toBe(true);
    await act(async () => fireEvent.click(screen.getByRole("button", { name: /^other/ })));
    await act(async () => fireEvent.click(screen.getByRole("button", { name: "Set as default" })));
    expect(api.setDefault).toHaveBeenCalledWith("p2");
    await act(async () => fireEvent.click(screen.getByRole("button", { name: "Duplicate" })));
    expect(api.duplicate).toHaveBeenCalledWith("p2");
  });
});

describe("the model and its reasoning effort", () => {
  it("lists the engine's models for the profile, and the chosen model's efforts; saves the effort in the engine options", async () => {
    const api = fakeApi([stored()], { listModels: vi.fn(async () => CATALOG) });
    render(<ProfilesView workspace={workspace} api={api} />);
    await waitFor(() => expect(api.listModels).toHaveBeenCalledWith("w1", "codex", "p1"));
    const model = (await screen.findByRole("combobox", { name: "Model" })) as HTMLSelectElement;
    expect([...model.options].map((o) => [o.value, o.textContent])).toEqual([
      ["", "The engine's default (GPT-5.5)"],
      ["gpt-5.5", "GPT-5.5 (gpt-5.5)"],
      ["gpt-5.4-mini", "GPT-5.4 mini (gpt-5.4-mini)"],
      ["\u0000custom", "Another model (type its name)"],
    ]);
    expect(model.value).toBe("gpt-5.5");
    expect(screen.queryByLabelText("Model name")).toBeNull();
    expect(screen.getByText("Frontier agentic coding")).toBeTruthy();
    const effort = screen.getByLabelText("Reasoning effort") as HTMLSelectElement;
    expect([...effort.options].map((o) => o.textContent)).toEqual(["The model's default (medium)", "low", "medium", "high"]);
    fireEvent.change(effort, { target: { value: "high" } });
    await act(async () => fireEvent.click(screen.getByRole("button", { name: "Save profile" })));
    expect(api.update).toHaveBeenCalledWith("p1", expect.objectContaining({ model: "gpt-5.5", engineOptions: expect.objectContaining({ reasoningEffort: "high" }) }));

    // (The save answered with the stored profile: no effort.) A model without efforts: none to choose.
    fireEvent.change(model, { target: { value: "gpt-5.4-mini" } });
    expect(screen.queryByLabelText("Reasoning effort")).toBeNull();
    // Another model: typed in its own field, kept as typed, and said.
    fireEvent.change(model, { target: { value: "\u0000custom" } });
    const name = screen.getByLabelText("Model name") as HTMLInputElement;
    fireEvent.change(name, { target: { value: "my-proxy-model" } });
    expect(name.value).toBe("my-proxy-model");
    expect(model.value).toBe("\u0000custom");
    expect(screen.getByText("Not one of the engine's listed models: it is sent as typed.")).toBeTruthy();
    // The default again: the model is left to the engine.
    fireEvent.change(model, { target: { value: "" } });
    await act(async () => fireEvent.click(screen.getByRole("button", { name: "Save profile" })));
    expect(api.update).toHaveBeenLastCalledWith("p1", expect.objectContaining({ model: null }));
  });

  it("asks again, with the engine's defaults, when the engine changes; says why there is no list", async () => {
    const listModels = vi.fn(async (_w: string, engine: string) =>
      engine === "acp" ? { models: [], unavailable: "ACP agent does not list its models: type the model's name." } : CATALOG,
    );
    const api = fakeApi([stored()], { listModels });
    render(<ProfilesView workspace={workspace} api={api} />);
    await screen.findByRole("combobox", { name: "Model" });
    fireEvent.change(screen.getByLabelText("Engine"), { target: { value: "acp" } });
    await waitFor(() => expect(listModels).toHaveBeenLastCalledWith("w1", "acp", null));
    expect(await screen.findByText("ACP agent does not list its models: type the model's name.")).toBeTruthy();
    expect(screen.getByRole("textbox", { name: "Model" })).toBeTruthy();
  });
});
