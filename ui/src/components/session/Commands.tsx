// The composer's `/` (and Codex's `$`): the commands the session's engine offers — Claude
// Code's slash commands and skills, Codex's skills — asked of the engine once per session
// view, filtered as the user types, inserted as the engine reads them.
import { useEffect, useState, type KeyboardEvent } from "react";
import type { CommandCatalog } from "../../generated/CommandCatalog";
import type { SlashCommand } from "../../generated/SlashCommand";
import { useIpc } from "../../ipc/context";
import { onListKey } from "./suggest";

const SHOWN = 8;
const LIST_ID = "composer-commands";
const optionId = (i: number) => `${LIST_ID}-${i}`;

/** The command word the caret ends: `/word` at the start of the message, or `$word` anywhere. */
export function commandAt(text: string, caret: number): { start: number; sigil: "/" | "$"; query: string } | null {
  const before = text.slice(0, caret);
  const m = /(^|\s)([/$])([\w:.-]*)$/.exec(before);
  if (!m) return null;
  const sigil = m[2] as "/" | "$";
  const start = before.length - m[3]!.length - 1;
  // A slash command is the message's first word.
  if (sigil === "/" && before.slice(0, start).trim() !== "") return null;
  return { start, sigil, query: m[3]! };
}

/** The commands whose name has `query` in it, those starting with it first. */
export function filterCommands(all: SlashCommand[], sigil: "/" | "$", query: string): SlashCommand[] {
  const q = query.toLowerCase();
  const fit = all.filter((c) => c.insert.startsWith(sigil) && c.name.toLowerCase().includes(q));
  fit.sort((a, b) => Number(!a.name.toLowerCase().startsWith(q)) - Number(!b.name.toLowerCase().startsWith(q)) || a.name.localeCompare(b.name));
  return fit.slice(0, SHOWN);
}

export interface CommandState {
  shown: SlashCommand[];
  active: number;
  unavailable: string | null;
  inputProps: { "aria-controls"?: string; "aria-activedescendant"?: string; "aria-expanded"?: boolean };
  onKeyDown: (e: KeyboardEvent<HTMLTextAreaElement>) => boolean;
  pick: (c: SlashCommand) => void;
}

export function useCommands(sessionId: string, text: string, caret: number | null, setText: (text: string, caret: number) => void): CommandState {
  const ipc = useIpc();
  const [catalog, setCatalog] = useState<CommandCatalog | null>(null);
  const [active, setActive] = useState(0);
  const [dismissed, setDismissed] = useState<string | null>(null);
  const at = caret === null ? null : commandAt(text, caret);
  const key = at ? `${at.start}:${at.sigil}` : null;
  const wanted = at !== null;

  // Asked once per session view, when first wanted (starting the engine takes a moment).
  useEffect(() => setCatalog(null), [sessionId]);
  useEffect(() => {
    // An empty answer is asked again at the next `/`: an agent that names its commands
    // during a session (ACP) has them after its first answer.
    if (!wanted && catalog && catalog.commands.length === 0) setCatalog(null);
    if (!wanted || catalog) return;
    let live = true;
    ipc
      .listCommands(sessionId)
      .then((c) => live && setCatalog(c))
      .catch((e: unknown) => live && setCatalog({ commands: [], unavailable: String((e as { message?: unknown })?.message ?? e) }));
    return () => {
      live = false;
    };
  }, [ipc, sessionId, wanted, catalog]);

  const shown = at && key !== dismissed && catalog ? filterCommands(catalog.commands, at.sigil, at.query) : [];
  const open = shown.length > 0;
  useEffect(() => setActive(0), [key, at?.query]);

  const pick = (c: SlashCommand) => {
    if (!at || caret === null) return;
    setText(text.slice(0, at.start) + c.insert + text.slice(caret), at.start + c.insert.length);
    setDismissed(`${at.start}:${at.sigil}`);
  };
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) =>
    onListKey(e, {
      count: shown.length,
      move: (step) => setActive((i) => (i + step + shown.length) % shown.length),
      pick: () => pick(shown[active] ?? shown[0]!),
      dismiss: () => setDismissed(key),
    });
  return {
    shown,
    active,
    unavailable: at && catalog?.unavailable ? catalog.unavailable : null,
    inputProps: open ? { "aria-controls": LIST_ID, "aria-activedescendant": optionId(active), "aria-expanded": true } : {},
    onKeyDown,
    pick,
  };
}

export function CommandList({ state }: { state: CommandState }) {
  if (state.shown.length === 0) {
    return state.unavailable ? <p className="command-note muted small">{state.unavailable}</p> : null;
  }
  return (
    <ul className="mention-list command-list" id={LIST_ID} role="listbox" aria-label="Commands">
      {state.shown.map((c, i) => (
        <li
          key={c.insert}
          id={optionId(i)}
          role="option"
          aria-selected={i === state.active}
          className={i === state.active ? "active" : undefined}
          onMouseDown={(e) => {
            e.preventDefault();
            state.pick(c);
          }}
        >
          <span className="command-name">{c.insert.trim()}</span>
          {c.argumentHint && <span className="command-hint"> {c.argumentHint}</span>}
          {c.description && <span className="command-description"> — {c.description}</span>}
        </li>
      ))}
    </ul>
  );
}
