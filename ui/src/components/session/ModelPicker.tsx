// The composer's model picker: the model and reasoning effort this session runs from its next
// run on, over its profile's. The engine's list is asked for only when the picker is first
// used (listing starts the engine), then kept for the app's lifetime per profile.
import { useEffect, useState } from "react";
import type { ModelCatalog } from "../../generated/ModelCatalog";
import { errorOf, type IpcError, type Profile, type Session } from "../../ipc";
import { useIpc } from "../../ipc/context";

const catalogs = new Map<string, Promise<ModelCatalog>>();

/** Forget the listed models (tests; a profile's endpoint may have changed). */
export function forgetModelLists() {
  catalogs.clear();
}

interface Props {
  session: Session;
  onChanged: (s: Session) => void;
  onError: (e: IpcError) => void;
}

export function ModelPicker({ session, onChanged, onError }: Props) {
  const ipc = useIpc();
  const [profile, setProfile] = useState<Profile | null | undefined>(undefined);
  // The list is kept with the key it was listed for: a list for another profile is never shown,
  // and no effect has to clear it (an effect clearing it could land after the list arrived).
  const [listed, setListed] = useState<{ key: string; catalog: ModelCatalog } | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    let live = true;
    ipc
      .listProfiles(session.workspaceId)
      .then((ps) => live && setProfile(ps.find((p) => p.id === session.profileId) ?? ps.find((p) => p.isDefault) ?? null))
      .catch(() => live && setProfile(null));
    return () => {
      live = false;
    };
  }, [ipc, session.workspaceId, session.profileId]);

  const key = `${session.workspaceId}|${session.engine}|${profile?.id ?? ""}`;
  const catalog = listed?.key === key ? listed.catalog : null;
  const load = () => {
    if (catalog || profile === undefined) return;
    let pending = catalogs.get(key);
    if (!pending) {
      pending = ipc.listModels(session.workspaceId, session.engine, profile?.id ?? null);
      catalogs.set(key, pending);
      pending.catch(() => catalogs.delete(key));
    }
    const forKey = key;
    pending
      .then((c) => setListed({ key: forKey, catalog: c }))
      .catch((e: unknown) => setListed({ key: forKey, catalog: { models: [], unavailable: `The models could not be listed: ${errorOf(e).message}` } }));
  };
  // A session already on its own model shows that model's efforts without a click.
  useEffect(() => {
    if (session.model || session.effort) load();
  }, [key, profile, session.model, session.effort]);

  if (profile === undefined) return null;
  const profileModel = profile?.model ?? null;
  const profileEffort = typeof profile?.engineOptions?.reasoningEffort === "string" ? profile.engineOptions.reasoningEffort : null;
  const models = catalog?.models ?? [];
  const effective = session.model ?? profileModel;
  const current = models.find((m) => (effective ? m.id === effective : m.isDefault));
  const efforts = current?.efforts ?? [];
  const change = async (model: string | null, effort: string | null) => {
    setBusy(true);
    try {
      onChanged(await ipc.setSessionModel(session.id, model, effort));
    } catch (e) {
      onError(errorOf(e));
    } finally {
      setBusy(false);
    }
  };
  const pickModel = (value: string) => {
    const model = value === "" ? null : value;
    const next = models.find((m) => (model ?? profileModel ? m.id === (model ?? profileModel) : m.isDefault));
    // An effort the new model does not take goes back to the profile's.
    const effort = session.effort && next?.efforts.includes(session.effort) ? session.effort : null;
    void change(model, effort);
  };
  const isListed = models.some((m) => m.id === session.model);
  return (
    <div className="model-picker" title={catalog?.unavailable ?? "Model for this session's next runs"}>
      <select
        aria-label="Model for this session"
        value={session.model ?? ""}
        disabled={busy}
        onFocus={load}
        onPointerDown={load}
        onChange={(e) => pickModel(e.target.value)}
      >
        <option value="">Profile's model{profileModel ? ` (${profileModel})` : ""}</option>
        {session.model && !isListed && <option value={session.model}>{session.model}</option>}
        {models.map((m) => (
          <option key={m.id} value={m.id} title={m.description}>
            {m.displayName}
            {m.isDefault ? " (default)" : ""}
          </option>
        ))}
        {catalog?.unavailable && (
          <option value="\u0000" disabled>
            {catalog.unavailable}
          </option>
        )}
      </select>
      {(efforts.length > 0 || session.effort) && (
        <select
          aria-label="Reasoning effort for this session"
          value={session.effort ?? ""}
          disabled={busy}
          onChange={(e) => void change(session.model, e.target.value === "" ? null : e.target.value)}
        >
          <option value="">Profile's effort{profileEffort ? ` (${profileEffort})` : current?.defaultEffort ? ` (${current.defaultEffort})` : ""}</option>
          {session.effort && !efforts.includes(session.effort) && <option value={session.effort}>{session.effort}</option>}
          {efforts.map((e) => (
            <option key={e} value={e}>
              {e}
            </option>
          ))}
        </select>
      )}
    </div>
  );
}
