// Engine health for the whole window: checked at start-up, again on "Re-check". The
// first-run screen and Settings show the same result.
import { useCallback, useEffect, useRef, useState } from "react";
import { errorOf, type IpcError } from "../../ipc";
import type { EngineHealth, SettingsApi } from "../../ipc/settings";

/** Found, a supported version, and not known to be logged out: runs can start. */
export function usable(h: EngineHealth): boolean {
  return h.path !== null && h.problem === null && h.loggedIn !== false;
}

/** The first-run screen: engines checked, and none of them usable. */
export function needsSetup(health: EngineHealth[] | null): boolean {
  return health !== null && health.length > 0 && !health.some(usable);
}

/** One line on what is wrong with an engine, or that it is ready. */
export function engineStatus(h: EngineHealth): string {
  if (h.path === null) return "Not found";
  if (h.problem?.code === "engine_version_unsupported") return `Version ${h.version ?? "?"} is not supported`;
  if (h.problem) return h.problem.message;
  if (h.loggedIn === false) return "Not logged in";
  if (h.loggedIn === true) return "Ready, logged in";
  return "Found (login not checked yet)";
}

export interface EngineHealthState {
  health: EngineHealth[] | null;
  checking: boolean;
  error: IpcError | null;
  /** `checkLogin` starts each found engine once to ask who is logged in. */
  recheck: (checkLogin: boolean) => Promise<void>;
}

export function useEngineHealth(api: SettingsApi, enabled: boolean, checkLoginAtStart: boolean): EngineHealthState {
  const [health, setHealth] = useState<EngineHealth[] | null>(null);
  const [checking, setChecking] = useState(false);
  const [error, setError] = useState<IpcError | null>(null);
  // A slow login probe must not overwrite the answer of a later, faster check.
  const generation = useRef(0);

  const recheck = useCallback(
    async (checkLogin: boolean) => {
      const mine = ++generation.current;
      setChecking(true);
      try {
        const h = await api.enginesHealth(checkLogin);
        if (mine === generation.current) {
          setHealth(h);
          setError(null);
        }
      } catch (e) {
        if (mine === generation.current) setError(errorOf(e));
      } finally {
        if (mine === generation.current) setChecking(false);
      }
    },
    [api],
  );

  useEffect(() => {
    if (enabled) void recheck(checkLoginAtStart);
  }, [enabled, checkLoginAtStart, recheck]);

  return { health, checking, error, recheck };
}
