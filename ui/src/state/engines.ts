// The engines the app can run, from the engine crate's registry (`list_engines`): the window
// lists them instead of keeping a list of its own. Static for the app's lifetime, so asked
// once per IPC client.
import { useEffect, useState } from "react";
import type { Engine } from "../generated/Engine";
import type { EngineInfo } from "../generated/EngineInfo";
import { useIpc } from "../ipc/context";

type Load = () => Promise<EngineInfo[]>;

const asked = new WeakMap<Load, Promise<EngineInfo[]>>();

function enginesOf(load: Load): Promise<EngineInfo[]> {
  let p = asked.get(load);
  if (!p) {
    p = load();
    // A failure is asked again next time instead of being remembered.
    p.catch(() => asked.delete(load));
    asked.set(load, p);
  }
  return p;
}

/** Every engine, as `load` lists them (empty until it answers). */
export function useEngineList(load: Load): EngineInfo[] {
  const [engines, setEngines] = useState<EngineInfo[]>([]);
  useEffect(() => {
    let live = true;
    enginesOf(load).then(
      (e) => live && setEngines(e),
      () => live && setEngines([]),
    );
    return () => {
      live = false;
    };
  }, [load]);
  return engines;
}

/** Every engine, from the window's IPC client. */
export function useEngines(): EngineInfo[] {
  return useEngineList(useIpc().listEngines);
}

/** An engine's name as users know it ("Codex", "ACP agent"); its id until the list is in. */
export function engineName(engines: EngineInfo[], engine: Engine): string {
  return engines.find((e) => e.engine === engine)?.displayName ?? engine;
}
