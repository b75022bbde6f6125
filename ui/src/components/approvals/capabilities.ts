import { createContext, useEffect, useState } from "react";
import type { Engine, EngineCapabilities } from "../../ipc";
import { useIpc } from "../../ipc/context";

/** The open session's engine capabilities; `null` where no single engine applies. */
export const EngineCapabilitiesContext = createContext<EngineCapabilities | null>(null);

/** Asks the shell once per engine (a static declaration); `null` until it answers or if it fails. */
export function useEngineCapabilities(engine: Engine): EngineCapabilities | null {
  const ipc = useIpc();
  const [caps, setCaps] = useState<{ engine: Engine; caps: EngineCapabilities } | null>(null);
  useEffect(() => {
    let live = true;
    ipc.engineCapabilities(engine).then(
      (c) => live && setCaps({ engine, caps: c }),
      () => live && setCaps(null),
    );
    return () => {
      live = false;
    };
  }, [ipc, engine]);
  return caps?.engine === engine ? caps.caps : null;
}
