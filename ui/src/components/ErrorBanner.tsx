import type { IpcError } from "../ipc";

export function ErrorBanner({ errors, onDismiss }: { errors: IpcError[]; onDismiss: (index: number) => void }) {
  if (errors.length === 0) return null;
  return (
    <div className="error-banner" role="alert" data-testid="error-banner">
      {errors.map((e, i) => (
        <div className="error-row" key={`${e.code}:${e.message}`}>
          <span className="error-code">{e.code.replace(/_/g, " ")}</span>
          <span className="error-message">{e.message}</span>
          <button type="button" className="icon-button" aria-label="Dismiss error" onClick={() => onDismiss(i)}>
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
