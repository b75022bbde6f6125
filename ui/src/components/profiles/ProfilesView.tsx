// A workspace's profiles: the list (the default marked), the editor of the one selected,
// and set default / duplicate / delete. Secrets arrive masked and stay masked: the core keeps
// a masked value that comes back unchanged.
import { useCallback, useEffect, useReducer, useRef, useState } from "react";
import type { Profile, Workspace } from "../../ipc";
import { AboveApp } from "../AboveApp";
import type { ProfileError } from "../../generated/ProfileError";
import { profilesApi, toProfileError, type ProfilesApi } from "../../ipc/profiles";
import { engineName, useEngineList } from "../../state/engines";
import { emptyForm, errorsByField, formFromProfile, formReducer, sameMcpServers, specFromForm } from "./form";
import type { McpCheck } from "./McpServers";
import { useModels, type ListModels } from "./ModelField";
import { ProfileEditor } from "./ProfileEditor";
import "./profiles.css";

interface Props {
  workspace: Workspace;
  /** The commands (a fake in component tests). */
  api?: ProfilesApi;
  /** A profile was saved, added or removed (e.g. to refresh a profile picker). */
  onChanged?: () => void;
}

/** `null`: a new profile being written. */
type Selection = string | null;

export function ProfilesView({ workspace, api = profilesApi, onChanged }: Props) {
  const engines = useEngineList(api.listEngines);
  const [profiles, setProfiles] = useState<Profile[] | null>(null);
  const [selected, setSelected] = useState<Selection>(null);
  const [form, dispatch] = useReducer(formReducer, undefined, () => emptyForm());
  const [failure, setFailure] = useState<ProfileError | null>(null);
  const [status, setStatus] = useState("");
  const [busy, setBusy] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  const confirmRef = useRef<HTMLButtonElement>(null);
  // The engine's models: with the selected profile's options while it keeps its engine.
  const listModels = useCallback<ListModels>((engine, profileId) => api.listModels(workspace.id, engine, profileId), [api, workspace.id]);
  const storedEngine = profiles?.find((p) => p.id === selected)?.engine;
  const models = useModels(listModels, form.engine, selected !== null && storedEngine === form.engine ? selected : null);

  // A rejected save brings the first field the core named into view, focused, so its
  // message is read and seen even when the field is far above the Save button.
  useEffect(() => {
    if (!failure?.fields.length) return;
    const first = formRef.current?.querySelector<HTMLElement>("[aria-invalid=true]");
    first?.focus();
    // Not in every DOM (jsdom has none).
    first?.scrollIntoView?.({ block: "center" });
  }, [failure]);

  useEffect(() => {
    if (confirmDelete) confirmRef.current?.focus();
  }, [confirmDelete]);

  const select = useCallback((p: Profile | null) => {
    setSelected(p ? p.id : null);
    dispatch({ type: "reset", form: p ? formFromProfile(p) : emptyForm() });
    setFailure(null);
    setConfirmDelete(false);
  }, []);

  const reload = useCallback(
    async (pick?: string | null) => {
      const list = await api.list(workspace.id);
      setProfiles(list);
      const want = pick === undefined ? list.find((p) => p.isDefault)?.id : pick;
      const p = list.find((x) => x.id === want) ?? (pick === null ? null : (list[0] ?? null));
      select(p);
      return list;
    },
    [api, workspace.id, select],
  );

  useEffect(() => {
    reload().catch((e) => setFailure(toProfileError(e)));
  }, [reload]);

  const act = async (what: () => Promise<string | null | undefined>, done: string) => {
    setBusy(true);
    setStatus("");
    setFailure(null);
    try {
      const pick = await what();
      await reload(pick);
      setStatus(done);
      onChanged?.();
    } catch (e) {
      setFailure(toProfileError(e));
    } finally {
      setBusy(false);
    }
  };

  const current = profiles?.find((p) => p.id === selected) ?? null;
  // The engine is asked about the stored servers: only while the form shows those, with the
  // stored engine (as for the models above).
  const mcpStatus = useCallback((profileId: string) => api.mcpStatus(workspace.id, profileId), [api, workspace.id]);
  const mcpCheck: McpCheck = {
    saved: current !== null,
    profileId: current && current.engine === form.engine && sameMcpServers(current.mcpServers ?? [], form.mcpServers) ? current.id : null,
    status: mcpStatus,
  };
  const save = () =>
    act(async () => {
      const spec = specFromForm(form);
      const p = current ? await api.update(current.id, spec) : await api.create(workspace.id, spec);
      return p.id;
    }, "Saved.");

  const fieldErrors = errorsByField(failure?.fields ?? []);
  const general = failure && failure.fields.length === 0 ? failure.message : null;

  return (
    <section className="profiles-view" aria-labelledby="profiles-title">
      <header className="profiles-header">
        <h1 id="profiles-title">Profiles · {workspace.name}</h1>
        <p className="muted">A profile is what a run uses: engine, model, permissions, prompt and environment. “New session” uses the default one.</p>
      </header>
      <div className="profiles-body">
        <nav className="profiles-list" aria-label="Profiles">
          {profiles === null ? (
            <p className="muted">Loading…</p>
          ) : (
            <ul>
              {profiles.map((p) => (
                <li key={p.id}>
                  <button
                    type="button"
                    className={`profile-item${p.id === selected ? " selected" : ""}`}
                    aria-current={p.id === selected ? "true" : undefined}
                    onClick={() => select(p)}
                  >
                    <span className="profile-name">{p.name}</span>
                    <span className="profile-meta">
                      {engineName(engines, p.engine)}
                      {p.model ? ` · ${p.model}` : ""}
                    </span>
                    {p.isDefault && <span className="tag">default</span>}
                  </button>
                </li>
              ))}
            </ul>
          )}
          <button type="button" className={`new-profile${selected === null ? " selected" : ""}`} onClick={() => select(null)}>
            <span aria-hidden="true">+ </span>New profile
          </button>
        </nav>
        {profiles === null ? (
          // Until the list is in, there is no form to type into: a value typed now would be
          // overwritten when the profiles arrive and the default one is selected.
          <div className="profile-form" aria-busy={failure ? undefined : "true"}>
            {failure ? (
              <p className="form-error" role="alert">
                {failure.message}
              </p>
            ) : (
              <p className="muted">Loading…</p>
            )}
          </div>
        ) : (
          <form
            ref={formRef}
            className="profile-form"
            aria-label={current ? `Profile ${current.name}` : "New profile"}
            onSubmit={(ev) => {
              ev.preventDefault();
              void save();
            }}
          >
            {general && (
              <p className="form-error" role="alert">
                {general}
              </p>
            )}
            {failure && failure.fields.length > 0 && (
              <p className="form-error" role="alert">
                Not saved: {failure.fields.length === 1 ? "a field needs" : `${failure.fields.length} fields need`} fixing (see below).
              </p>
            )}
            <ProfileEditor form={form} dispatch={dispatch} errors={fieldErrors} engines={engines} models={models} mcpCheck={mcpCheck} listing />
            <div className="profile-actions">
              <button type="submit" className="primary" disabled={busy}>
                {current ? "Save profile" : "Create profile"}
              </button>
              {current && (
                <>
                  <button type="button" disabled={busy || current.isDefault} onClick={() => void act(async () => (await api.setDefault(current.id), current.id), "Set as the default.")}>
                    Set as default
                  </button>
                  <button type="button" disabled={busy} onClick={() => void act(async () => (await api.duplicate(current.id)).id, "Duplicated.")}>
                    Duplicate
                  </button>
                  <button type="button" className="danger" disabled={busy} onClick={() => setConfirmDelete(true)}>
                    Delete…
                  </button>
                </>
              )}
              <span className="profile-status" role="status">
                {status}
              </span>
            </div>
            {current && confirmDelete && (
              <AboveApp>
                <div className="profiles-confirm-backdrop">
                  <div
                    className="profiles-confirm"
                    role="alertdialog"
                    aria-modal="true"
                    aria-labelledby="confirm-delete-title"
                    aria-describedby="confirm-delete-text"
                    onKeyDown={(ev) => ev.key === "Escape" && setConfirmDelete(false)}
                  >
                    <h2 id="confirm-delete-title">Delete the profile “{current.name}”?</h2>
                    <p id="confirm-delete-text">
                      Its settings{current.secretEnv.length ? " and saved secrets" : ""} are lost. Sessions that used it keep their history and run with the engine's
                      defaults{current.isDefault && (profiles?.length ?? 0) > 1 ? "; another profile becomes the default" : ""}.
                    </p>
                    <div className="profiles-confirm-actions">
                      <button type="button" onClick={() => setConfirmDelete(false)}>
                        Cancel
                      </button>
                      <button
                        type="button"
                        ref={confirmRef}
                        className="danger"
                        disabled={busy}
                        onClick={() => void act(async () => (await api.remove(current.id), undefined), "Deleted.")}
                      >
                        Delete profile
                      </button>
                    </div>
                  </div>
                </div>
              </AboveApp>
            )}
          </form>
        )}
      </div>
    </section>
  );
}
