import { useDiagnostics } from "../../state/hooks";
import type { SessionStore } from "../../state/sessionStore";
import { formatTime } from "../../util/format";

/** Engine diagnostics (stderr, unknown messages): kept out of the chat, shown here on demand. */
export function DiagnosticsPanel({ store, open, onToggle }: { store: SessionStore; open: boolean; onToggle: () => void }) {
  const items = useDiagnostics(store);
  return (
    <section className={`diagnostics${open ? " open" : ""}`} aria-label="Diagnostics">
      <button type="button" className="disclosure" aria-expanded={open} onClick={onToggle}>
        <span className="chevron" aria-hidden="true">{open ? "▾" : "▸"}</span>
        Diagnostics <span className="count">{items.length}</span>
      </button>
      {open && (
        <div className="diagnostics-body">
          {items.length === 0 ? (
            <p className="muted small">The engine has reported nothing unusual.</p>
          ) : (
            <ol>
              {items.map((d) =>
                d.body.kind === "diagnostic" ? (
                  <li key={d.id}>
                    <span className="diag-time">{formatTime(d.createdAt)}</span>
                    <span className={`diag-source src-${d.body.source}`}>{d.body.source.replace("_", " ")}</span>
                    <pre className="diag-message">{d.body.message}</pre>
                  </li>
                ) : null,
              )}
            </ol>
          )}
        </div>
      )}
    </section>
  );
}
