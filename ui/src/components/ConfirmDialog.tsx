import { useEffect, useRef, useState, type ReactNode } from "react";
import { AboveApp } from "./AboveApp";
import "./sidebar/sessionActions.css";

/** A confirm that names what the action does; Cancel has the focus, Esc cancels. */
export function ConfirmDialog(p: { id: string; title: string; children: ReactNode; confirm: string; onCancel: () => void; onConfirm: () => Promise<void> }) {
  const cancel = useRef<HTMLButtonElement>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => cancel.current?.focus(), []);
  return (
    <AboveApp>
      <div className="session-dialog-backdrop" onKeyDown={(e) => e.key === "Escape" && p.onCancel()}>
        <div className="session-dialog" role="alertdialog" aria-modal="true" aria-labelledby={`${p.id}-title`} aria-describedby={`${p.id}-what`}>
          <h2 id={`${p.id}-title`}>{p.title}</h2>
          <div id={`${p.id}-what`} className="dialog-body">
            {p.children}
          </div>
          <div className="session-dialog-actions">
            <button ref={cancel} type="button" onClick={p.onCancel}>
              Cancel
            </button>
            <button
              type="button"
              className="danger-button"
              disabled={busy}
              onClick={() => {
                setBusy(true);
                void p.onConfirm().finally(() => setBusy(false));
              }}
            >
              {p.confirm}
            </button>
          </div>
        </div>
      </div>
    </AboveApp>
  );
}
