import { useEffect, useRef, useState } from "react";
import type { Ipc } from "../../ipc";
import { errorOf, type IpcError } from "../../ipc";
import "../../styles/dialog.css";

/**
 * Asked once, when the window is closed while a run is active: keep Agent Desk running in
 * the tray (the run goes on, notifications and the tray still reach you) or quit (the run
 * stops). The shell stores the answer and follows it from then on; "Cancel" keeps the
 * window open and decides nothing.
 */
export function KeepInTrayDialog({ ipc, enabled }: { ipc: Ipc; enabled: boolean }) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<IpcError | null>(null);
  const keepRef = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (!enabled) return;
    let live = true;
    ipc
      .watchCloseRequests(() => {
        if (!live) return;
        setError(null);
        setOpen(true);
      })
      .catch((e: unknown) => setError(errorOf(e)));
    return () => {
      live = false;
    };
  }, [ipc, enabled]);

  useEffect(() => {
    if (open) keepRef.current?.focus();
  }, [open]);

  if (!open) return null;

  const answer = async (keep: boolean) => {
    setBusy(true);
    try {
      await ipc.keepRunningInTray(keep);
      setOpen(false);
    } catch (e) {
      setError(errorOf(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="dialog-backdrop">
      <div
        className="dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby="keep-in-tray-title"
        aria-describedby="keep-in-tray-text"
        onKeyDown={(e) => {
          if (e.key === "Escape" && !busy) setOpen(false);
        }}
      >
        <h2 id="keep-in-tray-title">Keep Agent Desk running in the tray?</h2>
        <p id="keep-in-tray-text">
          A run is still active. In the tray, it goes on and Agent Desk still tells you when an agent asks for
          something; quitting stops the run. Your answer is remembered.
        </p>
        {error && (
          <p className="dialog-error" role="alert">
            {error.message}
          </p>
        )}
        <div className="dialog-actions">
          <button type="button" onClick={() => setOpen(false)} disabled={busy}>
            Cancel
          </button>
          <button type="button" onClick={() => void answer(false)} disabled={busy}>
            Quit Agent Desk
          </button>
          <button type="button" className="primary" ref={keepRef} onClick={() => void answer(true)} disabled={busy}>
            Keep running in the tray
          </button>
        </div>
      </div>
    </div>
  );
}
