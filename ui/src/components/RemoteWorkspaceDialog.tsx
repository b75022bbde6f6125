// "Add remote workspace…": a folder on an SSH host. The host is what `ssh` takes
// (`[user@]host[:port]`, or a Host alias of ~/.ssh/config); the folder is typed or chosen in
// the host's folders, listed over the same connection the engines will use. Adding checks
// it there (reachable, host key known, folder present); a refusal stays in the dialog with
// what to do.
import { useEffect, useId, useRef, useState, type FormEvent } from "react";
import { errorOf, type IpcError } from "../ipc";
import { useIpc } from "../ipc/context";
import type { RemoteFolders } from "../generated/RemoteFolders";
import { AboveApp } from "./AboveApp";
import "./sidebar/sessionActions.css";
import "./remoteWorkspace.css";

interface Props {
  /** Adds `host:/folder`; throws the refusal. */
  onAdd: (location: string) => Promise<void>;
  onClose: () => void;
}

export function RemoteWorkspaceDialog({ onAdd, onClose }: Props) {
  const ipc = useIpc();
  const [host, setHost] = useState("");
  const [folder, setFolder] = useState("");
  const [listing, setListing] = useState<RemoteFolders | null>(null);
  const [busy, setBusy] = useState<"browse" | "add" | null>(null);
  const [error, setError] = useState<IpcError | null>(null);
  const hostInput = useRef<HTMLInputElement>(null);
  const ids = { title: useId(), help: useId(), error: useId() };
  useEffect(() => hostInput.current?.focus(), []);

  const browse = async (path: string | null) => {
    if (!host.trim()) return;
    setBusy("browse");
    setError(null);
    try {
      const found = await ipc.listRemoteFolders(host.trim(), path);
      setListing(found);
      setFolder(found.path);
    } catch (e) {
      setError(errorOf(e));
    } finally {
      setBusy(null);
    }
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!host.trim() || !folder.trim() || busy) return;
    setBusy("add");
    setError(null);
    try {
      await onAdd(`${host.trim()}:${folder.trim()}`);
      onClose();
    } catch (err) {
      setError(errorOf(err));
    } finally {
      setBusy(null);
    }
  };

  const join = (base: string, name: string) => (base.endsWith("/") ? `${base}${name}` : `${base}/${name}`);

  return (
    <AboveApp>
      <div className="session-dialog-backdrop" onKeyDown={(e) => e.key === "Escape" && onClose()}>
        <form
          className="session-dialog remote-dialog"
          role="dialog"
          aria-modal="true"
          aria-labelledby={ids.title}
          aria-describedby={ids.help}
          onSubmit={submit}
        >
          <h2 id={ids.title}>Add remote workspace</h2>
          <p id={ids.help} className="muted small">
            The agents run on the host over SSH, with your SSH config, keys and agent; approvals, notifications and history stay here.
          </p>
          <label className="remote-field">
            <span>Host</span>
            <input
              ref={hostInput}
              value={host}
              placeholder="user@host:port or a Host from ~/.ssh/config"
              autoComplete="off"
              spellCheck={false}
              onChange={(e) => {
                setHost(e.target.value);
                setListing(null);
              }}
            />
          </label>
          <div className="remote-folder-row">
            <label className="remote-field">
              <span>Folder on the host</span>
              <input value={folder} placeholder="/home/you/project" autoComplete="off" spellCheck={false} onChange={(e) => setFolder(e.target.value)} />
            </label>
            <button type="button" disabled={!host.trim() || busy !== null} onClick={() => void browse(folder.trim().startsWith("/") ? folder.trim() : null)}>
              {busy === "browse" ? "Listing…" : "Browse"}
            </button>
          </div>
          {listing && (
            <div className="remote-browser">
              <div className="remote-browser-here">
                <button
                  type="button"
                  aria-label="Parent folder"
                  title="Parent folder"
                  disabled={listing.parent === null || busy !== null}
                  onClick={() => void browse(listing.parent)}
                >
                  ↑
                </button>
                <span className="remote-browser-path" title={listing.path}>
                  {listing.host}:{listing.path}
                </span>
                <span className="muted small remote-browser-kind">{listing.repository ? "git repository" : "not a git repository"}</span>
              </div>
              <ul className="remote-browser-list" aria-label={`Folders on ${listing.host}`}>
                {listing.folders.length === 0 && <li className="muted small">No folders here.</li>}
                {listing.folders.map((name) => (
                  <li key={name}>
                    <button type="button" disabled={busy !== null} onClick={() => void browse(join(listing.path, name))}>
                      {name}
                    </button>
                  </li>
                ))}
              </ul>
              {listing.truncated && <p className="muted small">Only the first {listing.folders.length} folders are listed.</p>}
            </div>
          )}
          {error && (
            <p id={ids.error} className="settings-problem remote-error" role="alert">
              {error.message}
            </p>
          )}
          <div className="session-dialog-actions">
            <button type="button" onClick={onClose}>
              Cancel
            </button>
            <button type="submit" className="primary" disabled={!host.trim() || !folder.trim() || busy !== null}>
              {busy === "add" ? "Connecting…" : "Add workspace"}
            </button>
          </div>
        </form>
      </div>
    </AboveApp>
  );
}
