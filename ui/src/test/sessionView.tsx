import { act, render } from "@testing-library/react";
import { VirtuosoMockContext } from "react-virtuoso";
import { vi } from "vitest";
import type { Ipc, LiveBatch, LiveOp } from "../ipc";
import { IpcContext } from "../ipc/context";
import { SessionView } from "../components/session/SessionView";
import { fakeIpc, session } from "./fakeIpc";

/**
 * A session view over a fake IPC whose live batches the test pushes (`push`), in a mock
 * viewport of `viewportHeight` px (rows 100 px each).
 */
export function openSessionView(ipcOver: Partial<Ipc> = {}, viewportHeight = 2000) {
  let push: (ops: LiveOp[]) => void = () => {};
  let seq = 0;
  const ipc = fakeIpc({
    openSession: vi.fn(async (sessionId: string, onBatch: (b: LiveBatch) => void) => {
      push = (ops) => act(() => onBatch({ sessionId, seq: ++seq, ops }));
    }),
    ...ipcOver,
  });
  const onError = vi.fn();
  const utils = render(
    <IpcContext.Provider value={ipc}>
      <VirtuosoMockContext.Provider value={{ viewportHeight, itemHeight: 100 }}>
        <SessionView session={session()} focusApproval={null} onSessionChanged={() => {}} onError={onError} />
      </VirtuosoMockContext.Provider>
    </IpcContext.Provider>,
  );
  return { ipc, push: (ops: LiveOp[]) => push(ops), onError, ...utils };
}
