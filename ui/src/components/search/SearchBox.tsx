import { useEffect, useRef, useSyncExternalStore } from "react";
import type { SearchController } from "../../state/search";
import "./search.css";

const MAC = typeof navigator !== "undefined" && /Mac|iPhone|iPad/.test(navigator.platform);

/** The sidebar's search box; Ctrl/Cmd+K focuses it from anywhere, Esc clears it. */
export function SearchBox({ controller, disabled }: { controller: SearchController; disabled?: boolean }) {
  const state = useSyncExternalStore(controller.subscribe, controller.get);
  const input = useRef<HTMLInputElement>(null);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key.toLowerCase() !== "k" || e.altKey || e.shiftKey) return;
      if (!(MAC ? e.metaKey : e.ctrlKey)) return;
      e.preventDefault();
      input.current?.focus();
      input.current?.select();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  return (
    <div className="search-box" role="search">
      <input
        ref={input}
        type="search"
        aria-label="Search"
        placeholder={`Search all sessions (${MAC ? "⌘" : "Ctrl+"}K)`}
        value={state.query}
        disabled={disabled}
        onChange={(e) => controller.setQuery(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Escape") {
            e.preventDefault();
            controller.clear();
          }
        }}
      />
    </div>
  );
}
