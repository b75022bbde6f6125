import { createContext, useContext, useEffect, useRef, useState } from "react";
import { errorOf, type IpcError, type Session } from "../../ipc";
import type { ExportFormat, LibraryApi, SessionFootprint } from "../../ipc/library";
import "./sessionActions.css";
import { ConfirmDialog } from "../ConfirmDialog";

/** What the sidebar's session actions need from the app; without it, no actions are shown. */
export interface SessionActionsCtx {
  api: LibraryApi;
  /** Renamed, archived or unarchived: the new row. */
  onChanged: (s: Session) => void;
  onDeleted: (s: Session) => void;
  onError: (e: IpcError) => void;
  /** An export was written (the path), for the status line. */
  onExported: (path: string) => void;
}

export const SessionActionsContext = createContext<SessionActionsCtx | null>(null);

export function useSessionActions() {
  return useContext(SessionActionsContext);
}

function plural(n: number, one: string, many: string) {
  return `${n} ${n === 1 ? one : many}`;
}

/** "Its 4 messages and 2 runs will be removed…": what a delete loses, in words. */
export function deleteConsequence(f: SessionFootprint): string {
  const parts = [plural(f.messages, "message", "messages"), plural(f.runs, "run", "runs")];
  const files = f.attachments > 0 ? `, with ${plural(f.attachments, "attached file", "attached files")} no other session uses,` : "";
  return `Its ${parts.join(" and ")}${files} will be removed. This cannot be undone.`;
}

/** The ⋯ menu of one session: rename, archive / unarchive, export, delete. */
export function SessionMenu({ session, ctx, onRename }: { session: Session; ctx: SessionActionsCtx; onRename: () => void }) {
  const [open, setOpen] = useState(false);
  const [confirm, setConfirm] = useState<SessionFootprint | null>(null);
  const menu = useRef<HTMLDivElement>(null);
  const title = session.title || "Untitled session";

  useEffect(() => {
    if (!open) return;
    menu.current?.querySelector<HTMLButtonElement>("button")?.focus();
    const close = (e: MouseEvent) => {
      if (!menu.current?.parentElement?.contains(e.target as Node)) setOpen(false);
    };
    window.addEventListener("mousedown", close);
    return () => window.removeEventListener("mousedown", close);
  }, [open]);

  const act = (f: () => Promise<void>) => () => {
    setOpen(false);
    f().catch((e) => ctx.onError(errorOf(e)));
  };
  const archive = act(async () => ctx.onChanged(await ctx.api.archiveSession(session.id, session.archivedAt === null)));
  const exportAs = (format: ExportFormat) =>
    act(async () => {
      const path = await ctx.api.exportSession(session.id, format);
      if (path) ctx.onExported(path);
    });
  const askDelete = act(async () => setConfirm(await ctx.api.sessionFootprint(session.id)));

  return (
    <>
      <button
        type="button"
        className="icon-button session-menu-button"
        aria-label={`Actions for ${title}`}
        aria-haspopup="menu"
        aria-expanded={open}
        onClick={() => setOpen((o) => !o)}
      >
        ⋯
      </button>
      {open && (
        <div
          ref={menu}
          className="session-menu"
          role="menu"
          aria-label={`Actions for ${title}`}
          onKeyDown={(e) => {
            if (e.key === "Escape") setOpen(false);
            if (e.key === "ArrowDown" || e.key === "ArrowUp") {
              e.preventDefault();
              const items = Array.from(menu.current?.querySelectorAll<HTMLButtonElement>("button") ?? []);
              const at = items.indexOf(document.activeElement as HTMLButtonElement);
              items[(at + (e.key === "ArrowDown" ? 1 : items.length - 1)) % items.length]?.focus();
            }
          }}
        >
          <button
            type="button"
            role="menuitem"
            onClick={() => {
              setOpen(false);
              onRename();
            }}
          >
            Rename
          </button>
          <button type="button" role="menuitem" onClick={archive}>
            {session.archivedAt === null ? "Archive" : "Unarchive"}
          </button>
          <button type="button" role="menuitem" onClick={exportAs("markdown")}>
            Export as Markdown…
          </button>
          <button type="button" role="menuitem" onClick={exportAs("json")}>
            Export as JSON…
          </button>
          <button type="button" role="menuitem" className="danger" onClick={askDelete}>
            Delete…
          </button>
        </div>
      )}
      {confirm && (
        <ConfirmDialog
          id="delete-session"
          title={`Delete “${title}”?`}
          confirm="Delete session"
          onCancel={() => setConfirm(null)}
          onConfirm={async () => {
            try {
              await ctx.api.deleteSession(session.id);
              setConfirm(null);
              ctx.onDeleted(session);
            } catch (e) {
              setConfirm(null);
              ctx.onError(errorOf(e));
            }
          }}
        >
          <p>{deleteConsequence(confirm)}</p>
        </ConfirmDialog>
      )}
    </>
  );
}

/** The title being renamed in place: Enter saves, Esc cancels. */
export function RenameField({ session, ctx, onDone }: { session: Session; ctx: SessionActionsCtx; onDone: () => void }) {
  const [value, setValue] = useState(session.title);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    input.current?.focus();
    input.current?.select();
  }, []);
  const save = async () => {
    const title = value.trim();
    if (!title || title === session.title) return onDone();
    try {
      ctx.onChanged(await ctx.api.renameSession(session.id, title));
    } catch (e) {
      ctx.onError(errorOf(e));
    }
    onDone();
  };
  return (
    <input
      ref={input}
      className="session-rename"
      aria-label="Session name"
      value={value}
      onChange={(e) => setValue(e.target.value)}
      onBlur={() => void save()}
      onKeyDown={(e) => {
        if (e.key === "Enter") {
          e.preventDefault();
          void save();
        } else if (e.key === "Escape") {
          e.preventDefault();
          onDone();
        }
      }}
    />
  );
}
