import { useState, type FormEvent } from "react";

interface Props {
  disabled: boolean;
  onAdd: (path: string) => Promise<boolean>;
  onPick: () => void;
  /** Opens "Add remote workspace…". */
  onAddRemote?: () => void;
}

export function AddWorkspace({ disabled, onAdd, onPick, onAddRemote }: Props) {
  const [path, setPath] = useState("");
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!path.trim() || busy) return;
    setBusy(true);
    const ok = await onAdd(path.trim());
    setBusy(false);
    if (ok) setPath("");
  };

  return (
    <div className="add-workspace">
      <button type="button" className="primary" disabled={disabled} onClick={onPick} data-testid="pick-folder">
        Add workspace…
      </button>
      {onAddRemote && (
        <button type="button" className="add-remote" disabled={disabled} onClick={onAddRemote}>
          Add remote workspace…
        </button>
      )}
      <form onSubmit={submit} className="path-form">
        <label htmlFor="workspace-path" className="visually-hidden">
          Folder path
        </label>
        <input
          id="workspace-path"
          data-testid="workspace-path-input"
          placeholder="or type a folder path"
          value={path}
          disabled={disabled}
          autoComplete="off"
          spellCheck={false}
          onChange={(e) => setPath(e.target.value)}
        />
        <button type="submit" disabled={disabled || busy || !path.trim()} data-testid="add-workspace-submit">
          Add
        </button>
      </form>
    </div>
  );
}
