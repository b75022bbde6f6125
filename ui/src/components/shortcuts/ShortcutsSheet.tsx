// The `?` sheet: every keyboard shortcut of the window.
import { useEffect, useRef } from "react";
import { SHORTCUTS } from "./shortcuts";
import "./shortcuts.css";

export function ShortcutsSheet({ onClose }: { onClose: () => void }) {
  const close = useRef<HTMLButtonElement>(null);
  const before = useRef<Element | null>(null);
  useEffect(() => {
    before.current = document.activeElement;
    close.current?.focus();
    return () => {
      if (before.current instanceof HTMLElement) before.current.focus();
    };
  }, []);
  return (
    <div className="shortcuts-backdrop" onClick={onClose}>
      <div
        className="shortcuts-sheet"
        role="dialog"
        aria-modal="true"
        aria-labelledby="shortcuts-title"
        data-testid="shortcuts-sheet"
        onClick={(e) => e.stopPropagation()}
        onKeyDown={(e) => {
          if (e.key === "Escape") {
            e.preventDefault();
            onClose();
          } else if (e.key === "Tab") {
            // One focusable control: keep the focus inside the dialog.
            e.preventDefault();
            close.current?.focus();
          }
        }}
      >
        <div className="shortcuts-head">
          <h2 id="shortcuts-title">Keyboard shortcuts</h2>
          <button type="button" ref={close} onClick={onClose} aria-label="Close keyboard shortcuts">
            Close
          </button>
        </div>
        <table className="shortcuts-table">
          <tbody>
            {SHORTCUTS.map((s) => (
              <tr key={s.action}>
                <td>
                  <kbd>{s.keys}</kbd>
                </td>
                <td>{s.label}</td>
              </tr>
            ))}
            <tr>
              <td>
                <kbd>a</kbd> <kbd>s</kbd> <kbd>d</kbd>
              </td>
              <td>On a focused request: approve once, approve for the session, deny</td>
            </tr>
            <tr>
              <td>
                <kbd>Esc</kbd>
              </td>
              <td>In the message box: interrupt the run</td>
            </tr>
          </tbody>
        </table>
      </div>
    </div>
  );
}
