import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { useState } from "react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ModelCatalog } from "../../generated/ModelCatalog";
import type { Ipc, Session } from "../../ipc";
import { IpcContext } from "../../ipc/context";
import { fakeIpc, profile, session } from "../../test/fakeIpc";
import { forgetModelLists, ModelPicker } from "./ModelPicker";

afterEach(cleanup);
beforeEach(forgetModelLists);

const CATALOG: ModelCatalog = {
  unavailable: null,
  models: [
    { id: "gpt-5.5", displayName: "GPT-5.5", description: "Frontier", isDefault: true, efforts: ["low", "medium", "high"], defaultEffort: "medium" },
    { id: "gpt-5.4-mini", displayName: "GPT-5.4 mini", description: "Fast", isDefault: false, efforts: ["low", "medium"], defaultEffort: "low" },
    { id: "plain", displayName: "Plain", description: "", isDefault: false, efforts: [], defaultEffort: null },
  ],
};

function Host({ start, onError }: { start: Session; onError: () => void }) {
  const [s, setS] = useState(start);
  return <ModelPicker session={s} onChanged={setS} onError={onError} />;
}

function mount(over: Partial<Ipc> = {}, start: Session = session()) {
  const onError = vi.fn();
  const ipc = fakeIpc({ listProfiles: vi.fn(async () => [profile({ id: "p1", isDefault: true, model: null })]), listModels: vi.fn(async () => CATALOG), ...over });
  render(
    <IpcContext.Provider value={ipc}>
      <Host start={start} onError={onError} />
    </IpcContext.Provider>,
  );
  return { ipc, onError };
}

const options = (name: string) =>
  Array.from((screen.getByRole("combobox", { name }) as HTMLSelectElement).options)
    .filter((o) => !o.disabled)
    .map((o) => o.textContent);

describe("the composer's model picker", () => {
  it("lists the engine's models when first used, and sets the session's model and effort", async () => {
    const { ipc } = mount();
    const model = await screen.findByRole("combobox", { name: "Model for this session" });
    // Listing starts the engine: not before the picker is used.
    expect(ipc.listModels).not.toHaveBeenCalled();
    expect(screen.queryByRole("combobox", { name: "Reasoning effort for this session" })).toBeNull();
    fireEvent.focus(model);
    await waitFor(() => expect(options("Model for this session")).toEqual(["Profile's model", "GPT-5.5 (default)", "GPT-5.4 mini", "Plain"]));
    expect(ipc.listModels).toHaveBeenCalledWith("w1", "codex", "p1");
    // The profile's model is the engine's default: its efforts are offered.
    expect(options("Reasoning effort for this session")).toEqual(["Profile's effort (medium)", "low", "medium", "high"]);

    fireEvent.change(model, { target: { value: "gpt-5.4-mini" } });
    await waitFor(() => expect(ipc.setSessionModel).toHaveBeenCalledWith("s1", "gpt-5.4-mini", null));
    await waitFor(() => expect(options("Reasoning effort for this session")).toEqual(["Profile's effort (low)", "low", "medium"]));
    fireEvent.change(screen.getByRole("combobox", { name: "Reasoning effort for this session" }), { target: { value: "medium" } });
    await waitFor(() => expect(ipc.setSessionModel).toHaveBeenLastCalledWith("s1", "gpt-5.4-mini", "medium"));
    expect((screen.getByRole("combobox", { name: "Reasoning effort for this session" }) as HTMLSelectElement).value).toBe("medium");

    // A model without efforts drops the effort the session had; back to the profile's model.
    fireEvent.change(model, { target: { value: "plain" } });
    await waitFor(() => expect(ipc.setSessionModel).toHaveBeenLastCalledWith("s1", "plain", null));
    await waitFor(() => expect(screen.queryByRole("combobox", { name: "Reasoning effort for this session" })).toBeNull());
    fireEvent.change(model, { target: { value: "" } });
    await waitFor(() => expect(ipc.setSessionModel).toHaveBeenLastCalledWith("s1", null, null));
  });

  it("shows a session's own model at once, even one the engine does not list", async () => {
    mount({}, session({ model: "my-finetune", effort: "high" }));
    await waitFor(() => expect(options("Model for this session")).toEqual(["Profile's model", "my-finetune", "GPT-5.5 (default)", "GPT-5.4 mini", "Plain"]));
    expect((screen.getByRole("combobox", { name: "Model for this session" }) as HTMLSelectElement).value).toBe("my-finetune");
    expect((screen.getByRole("combobox", { name: "Reasoning effort for this session" }) as HTMLSelectElement).value).toBe("high");
  });

  it("says why there is no list", async () => {
    mount({ listModels: vi.fn(async () => ({ models: [], unavailable: "A custom endpoint: type the model in the profile." })) });
    fireEvent.pointerDown(await screen.findByRole("combobox", { name: "Model for this session" }));
    await waitFor(() => expect(screen.getByText("A custom endpoint: type the model in the profile.")).toBeTruthy());
    expect(options("Model for this session")).toEqual(["Profile's model"]);
  });

  it("reports a refused choice and keeps the session as it was", async () => {
    const { onError } = mount({ setSessionModel: vi.fn(async () => Promise.reject({ code: "invalid_input", message: "no such model" })) });
    const model = await screen.findByRole("combobox", { name: "Model for this session" });
    fireEvent.focus(model);
    await waitFor(() => expect(options("Model for this session")).toHaveLength(4));
    fireEvent.change(model, { target: { value: "gpt-5.4-mini" } });
    await waitFor(() => expect(onError).toHaveBeenCalledWith(expect.objectContaining({ code: "invalid_input", message: "no such model" })));
    expect((model as HTMLSelectElement).value).toBe("");
  });

  it("asks the engine once per profile", async () => {
    const { ipc } = mount();
    fireEvent.focus(await screen.findByRole("combobox", { name: "Model for this session" }));
    await waitFor(() => expect(options("Model for this session")).toHaveLength(4));
    cleanup();
    render(
      <IpcContext.Provider value={ipc}>
        <Host start={session({ id: "s2" })} onError={() => {}} />
      </IpcContext.Provider>,
    );
    fireEvent.focus(await screen.findByRole("combobox", { name: "Model for this session" }));
    await waitFor(() => expect(options("Model for this session")).toHaveLength(4));
    expect(ipc.listModels).toHaveBeenCalledTimes(1);
  });
});
