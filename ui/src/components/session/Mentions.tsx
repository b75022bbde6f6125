// The composer's `@`: a file of the session's folder, fuzzy-found by the core (`.gitignore`
// respected) and inserted as `@path`. The core hands the mentioned files to the engine with
// the message (Claude Code reads `@path` itself; Codex and ACP agents get the file's text).
import { useEffect, useState, type KeyboardEvent } from "react";
import { useIpc } from "../../ipc/context";
import { onListKey } from "./suggest";

/** Files shown at once. */
const SHOWN = 8;

/** The `@` word the caret is in: where its `@` is and what follows it up to the caret. */
export function mentionAt(text: string, caret: number): { start: number; query: string } | null {
  const before = text.slice(0, caret);
  const at = before.lastIndexOf("@");
  if (at < 0) return null;
  const query = before.slice(at + 1);
  if (/\s/.test(query) || query.startsWith('"')) return null;
  const prev = at > 0 ? before[at - 1]! : " ";
  if (!/[\s([{"'`]/.test(prev)) return null; // an address (me@host), not a mention
  return { start: at, query };
}

/** `@path ` as the core reads it back (quoted when the path has spaces). */
export function mentionText(path: string): string {
  return /\s/.test(path) ? `@"${path}" ` : `@${path} `;
}

export interface MentionState {
  /** The files offered (empty: the list is closed). */
  files: string[];
  active: number;
  /** Listbox props for the textarea (combobox-like). */
  inputProps: {
    "aria-autocomplete": "list";
    "aria-controls"?: string;
    "aria-expanded": boolean;
    "aria-activedescendant"?: string;
  };
  /** Handles the list's keys; `true` when it used the key. */
  onKeyDown: (e: KeyboardEvent<HTMLTextAreaElement>) => boolean;
  pick: (path: string) => void;
}

const LIST_ID = "mention-files";
const optionId = (i: number) => `${LIST_ID}-${i}`;

/** The `@` list of the composer's text: `setText` gets the text with the pick inserted. */
export function useMentions(
  sessionId: string,
  text: string,
  caret: number | null,
  setText: (text: string, caret: number) => void,
): MentionState {
  const ipc = useIpc();
  const [files, setFiles] = useState<string[]>([]);
  const [active, setActive] = useState(0);
  const [dismissed, setDismissed] = useState<string | null>(null);
  const at = caret === null ? null : mentionAt(text, caret);
  const key = at ? `${at.start}:${at.query}` : null;

  useEffect(() => {
    if (!at || key === dismissed) {
      setFiles([]);
      return;
    }
    let live = true;
    // Typing fast asks once, for the word as it ends up.
    const timer = setTimeout(() => {
      ipc
        .findFiles(sessionId, at.query)
        .then((found) => {
          if (!live) return;
          setFiles(found.slice(0, SHOWN));
          setActive(0);
        })
        .catch(() => live && setFiles([]));
    }, 80);
    return () => {
      live = false;
      clearTimeout(timer);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [ipc, sessionId, key, dismissed]);

  const pick = (path: string) => {
    if (!at || caret === null) return;
    const inserted = mentionText(path);
    setText(text.slice(0, at.start) + inserted + text.slice(caret), at.start + inserted.length);
    setFiles([]);
  };

  const open = files.length > 0;
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) =>
    onListKey(e, {
      count: files.length,
      move: (step) => setActive((i) => (i + step + files.length) % files.length),
      pick: () => pick(files[active] ?? files[0]!),
      dismiss: () => {
        setDismissed(key);
        setFiles([]);
      },
    });

  return {
    files,
    active,
    inputProps: {
      "aria-autocomplete": "list",
      "aria-controls": open ? LIST_ID : undefined,
      "aria-expanded": open,
      "aria-activedescendant": open ? optionId(active) : undefined,
    },
    onKeyDown,
    pick,
  };
}

/** The list of files under the composer's `@`. */
export function MentionList({ state }: { state: MentionState }) {
  if (state.files.length === 0) return null;
  return (
    <ul className="mention-list" id={LIST_ID} role="listbox" aria-label="Files to mention">
      {state.files.map((f, i) => (
        <li
          key={f}
          id={optionId(i)}
          role="option"
          aria-selected={i === state.active}
          className={i === state.active ? "active" : undefined}
          // Keep the caret in the message box.
          onMouseDown={(e) => {
            e.preventDefault();
            state.pick(f);
          }}
        >
          {f}
        </li>
      ))}
    </ul>
  );
}
