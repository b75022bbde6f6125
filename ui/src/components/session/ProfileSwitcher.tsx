import { useEffect, useState } from "react";
import { errorOf, type IpcError, type Profile, type Session } from "../../ipc";
import { useIpc } from "../../ipc/context";
import { engineName, useEngines } from "../../state/engines";

/** Which profile the next run uses. */
export function ProfileSwitcher({ session, onChanged, onError }: { session: Session; onChanged: (s: Session) => void; onError: (e: IpcError) => void }) {
  const ipc = useIpc();
  const engines = useEngines();
  const [profiles, setProfiles] = useState<Profile[] | null>(null);

  useEffect(() => {
    let live = true;
    ipc
      .listProfiles(session.workspaceId)
      .then((p) => live && setProfiles(p))
      .catch((e) => live && onError(errorOf(e)));
    return () => {
      live = false;
    };
  }, [ipc, session.workspaceId, onError]);

  if (!profiles || profiles.length === 0) return null;
  const current = session.profileId ?? profiles.find((p) => p.isDefault)?.id ?? "";
  const change = async (profileId: string) => {
    try {
      onChanged(await ipc.setSessionProfile(session.id, profileId));
    } catch (e) {
      onError(errorOf(e));
    }
  };
  return (
    <label className="profile-switcher" title="Profile for the next run">
      <span className="label">Profile</span>
      <select value={current} onChange={(e) => void change(e.target.value)} aria-label="Profile">
        {profiles.map((p) => (
          <option key={p.id} value={p.id}>
            {p.name} · {engineName(engines, p.engine)}
            {p.model ? ` · ${p.model}` : ""}
          </option>
        ))}
      </select>
    </label>
  );
}
