// Search as you type: debounced, and only the answer to the latest query is ever shown
// (an older request that answers late is dropped, so results never jump back to stale ones).
import type { SearchHit } from "../generated/SearchHit";

export type SearchFn = (query: string) => Promise<SearchHit[]>;

export interface SearchState {
  query: string;
  /** The query the hits answer (lags `query` while a newer one is pending). */
  answered: string | null;
  hits: SearchHit[];
  loading: boolean;
  error: string | null;
}

export const SEARCH_DEBOUNCE_MS = 150;

const EMPTY: SearchState = { query: "", answered: null, hits: [], loading: false, error: null };

export class SearchController {
  private state: SearchState = EMPTY;
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** Increases with every query typed; an answer for an older one is ignored. */
  private latest = 0;
  private listeners = new Set<() => void>();

  constructor(
    private readonly search: SearchFn,
    private readonly debounceMs = SEARCH_DEBOUNCE_MS,
  ) {}

  get = (): SearchState => this.state;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** What the user typed: searched once typing pauses; blank clears at once. */
  setQuery(query: string) {
    const id = ++this.latest;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!query.trim()) {
      this.set({ ...EMPTY, query });
      return;
    }
    this.set({ ...this.state, query, loading: true, error: null });
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.run(id, query);
    }, this.debounceMs);
  }

  /** Forget the query and any answer still on its way. */
  clear() {
    this.setQuery("");
  }

  dispose() {
    this.latest++;
    if (this.timer) clearTimeout(this.timer);
    this.listeners.clear();
  }

  private async run(id: number, query: string) {
    try {
      const hits = await this.search(query.trim());
      if (id !== this.latest) return;
      this.set({ query, answered: query, hits, loading: false, error: null });
    } catch (e) {
      if (id !== this.latest) return;
      const message = e && typeof e === "object" && "message" in e ? String((e as { message: unknown }).message) : String(e);
      this.set({ ...this.state, loading: false, error: message });
    }
  }

  private set(next: SearchState) {
    this.state = next;
    for (const l of this.listeners) l();
  }
}
