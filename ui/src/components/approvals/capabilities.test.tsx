import { act, cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { EngineCapabilities, Ipc } from "../../ipc";
import { IpcContext } from "../../ipc/context";
import { approval, fakeIpc } from "../../test/fakeIpc";
import { ApprovalCard } from "./ApprovalCard";
import { EngineCapabilitiesContext, useEngineCapabilities } from "./capabilities";
import { fromApproval } from "./decision";

afterEach(cleanup);

const ALL: EngineCapabilities = {
  editedInput: true,
  denyMessage: true,
  denyAndStop: true,
  questions: true,
  cost: true,
  sessionGrants: false,
  residentServer: false,
  midRunSettings: true,
};

function card(caps: EngineCapabilities | null) {
  return render(
    <IpcContext.Provider value={fakeIpc()}>
      <EngineCapabilitiesContext.Provider value={caps}>
        <ApprovalCard data={fromApproval(approval())} />
      </EngineCapabilitiesContext.Provider>
    </IpcContext.Provider>,
  );
}

const HINT = "This engine is not told the reason; it is kept with the decision.";

describe("ApprovalCard reads the engine's capabilities", () => {
  it("offers deny-and-stop and a reason the model hears when the engine can", () => {
    card(ALL);
    expect(screen.getByRole("button", { name: "Stop the run" })).toBeTruthy();
    expect(screen.queryByText(HINT)).toBeNull();
  });

  it("hides what the engine cannot carry out, and says the reason stays local", () => {
    card({ ...ALL, denyAndStop: false, denyMessage: false });
    expect(screen.queryByRole("button", { name: "Stop the run" })).toBeNull();
    expect(screen.getByText(HINT)).toBeTruthy();
    // Deciding itself is untouched.
    expect(screen.getByRole("button", { name: "Deny" })).toBeTruthy();
    expect(screen.getByRole("textbox", { name: "Reason for denying (optional)" })).toBeTruthy();
  });

  it("offers everything where no single engine applies (the Approvals view)", () => {
    card(null);
    expect(screen.getByRole("button", { name: "Stop the run" })).toBeTruthy();
    expect(screen.queryByText(HINT)).toBeNull();
  });
});

function Probe({ engine }: { engine: "codex" | "claude" }) {
  const caps = useEngineCapabilities(engine);
  return <p>{caps === null ? "unknown" : `stop:${caps.denyAndStop} message:${caps.denyMessage}`}</p>;
}

describe("useEngineCapabilities", () => {
  it("asks the shell for the session's engine", async () => {
    const engineCapabilities = vi.fn(async () => ({ ...ALL, denyMessage: false }));
    const ipc: Ipc = fakeIpc({ engineCapabilities });
    await act(async () => {
      render(
        <IpcContext.Provider value={ipc}>
          <Probe engine="codex" />
        </IpcContext.Provider>,
      );
    });
    expect(engineCapabilities).toHaveBeenCalledWith("codex");
    expect(screen.getByText("stop:true message:false")).toBeTruthy();
  });

  it("stays unknown when the shell cannot answer", async () => {
    const ipc: Ipc = fakeIpc({ engineCapabilities: vi.fn(async () => Promise.reject({ code: "internal", message: "x" })) });
    await act(async () => {
      render(
        <IpcContext.Provider value={ipc}>
          <Probe engine="claude" />
        </IpcContext.Provider>,
      );
    });
    expect(screen.getByText("unknown")).toBeTruthy();
  });
});
