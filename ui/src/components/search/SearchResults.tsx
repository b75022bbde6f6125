import { useSyncExternalStore } from "react";
import type { Workspace } from "../../ipc";
import type { SearchController } from "../../state/search";
import type { SearchHit } from "../../ipc/library";

function when(ms: number): string {
  const d = new Date(ms);
  return d.toLocaleString(undefined, { year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
}

function Snippet({ hit }: { hit: SearchHit }) {
  return (
    <span className="search-snippet">
      {hit.snippet.map((p, i) => (p.highlight ? <mark key={i}>{p.text}</mark> : <span key={i}>{p.text}</span>))}
    </span>
  );
}

interface Props {
  controller: SearchController;
  workspaces: Workspace[];
  onOpen: (hit: SearchHit) => void;
}

/** The answer to what is typed in the search box: messages from every session, best first. */
export function SearchResults({ controller, workspaces, onOpen }: Props) {
  const state = useSyncExternalStore(controller.subscribe, controller.get);
  const q = state.query.trim();
  const names = new Map(workspaces.map((w) => [w.id, w.name]));
  return (
    <section className="search-results" aria-labelledby="search-results-title">
      <h1 id="search-results-title">Results for “{q}”</h1>
      <p className="muted small" role="status">
        {state.error
          ? ""
          : state.loading && state.answered === null
            ? "Searching…"
            : state.answered !== null && state.hits.length === 0 && !state.loading
              ? `No messages match “${state.answered.trim()}”.`
              : state.hits.length > 0
                ? `${state.hits.length === 50 ? "The best 50" : state.hits.length} ${state.hits.length === 1 ? "message" : "messages"}${state.loading ? " — updating…" : ""}`
                : ""}
      </p>
      {state.error && (
        <p className="search-error" role="alert">
          Search failed: {state.error}
        </p>
      )}
      <ul className="search-hits">
        {state.hits.map((hit) => (
          <li key={hit.itemId}>
            <button type="button" className="search-hit" data-testid="search-hit" onClick={() => onOpen(hit)}>
              <span className="search-hit-head">
                <span className="search-hit-session">{hit.sessionTitle || "Untitled session"}</span>
                <span className="search-hit-meta">
                  {names.get(hit.workspaceId) ?? "Unknown workspace"} · {hit.kind === "user_message" ? "you" : "agent"} · <time dateTime={new Date(hit.createdAt).toISOString()}>{when(hit.createdAt)}</time>
                </span>
              </span>
              <Snippet hit={hit} />
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
