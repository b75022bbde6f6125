import { createContext, useContext } from "react";
import type { Ipc } from "./index";

/** The IPC object, provided once by `App` so deep components (links, cards) can reach it. */
export const IpcContext = createContext<Ipc | null>(null);

export function useIpc(): Ipc {
  const ipc = useContext(IpcContext);
  if (!ipc) throw new Error("useIpc outside <IpcContext.Provider>");
  return ipc;
}
