import { useEffect, useRef, useState, type ClipboardEvent, type KeyboardEvent, type ReactNode } from "react";
import { errorOf, type Attachment, type OfferedFile, type Run } from "../../ipc";
import { useIpc } from "../../ipc/context";
import { formatBytes } from "../../util/format";
import { AttachmentThumb } from "./items/Messages";
import { Icon } from "../Icon";
import { SettingsLink } from "../firstrun/SettingsLink";
import { isSendKey, useUiSettings } from "../settings/prefs";
import { CommandList, useCommands } from "./Commands";
import { MentionList, useMentions } from "./Mentions";

export interface Refusal {
  name: string;
  reason: string;
}

interface Props {
  sessionId: string;
  /** The running run, if any (Interrupt / Esc stop it). */
  running: Run | null;
  /** Files dropped on the window (as tokens), handed over by the session view. */
  dropped: { files: OfferedFile[]; at: number } | null;
  disabled?: boolean;
  /** Put the cursor in the message box when the session opens. */
  autoFocus?: boolean;
  /** Settings for the next run shown under the message box (the model picker). */
  tools?: ReactNode;
}

/** Where the user writes: text, attachments (picker, paste, drop), send, interrupt. */
export function Composer({ sessionId, running, dropped, disabled = false, autoFocus = false, tools }: Props) {
  const ipc = useIpc();
  const [text, setText] = useState("");
  const [attachments, setAttachments] = useState<Attachment[]>([]);
  const [refused, setRefused] = useState<Refusal[]>([]);
  const [importing, setImporting] = useState(0);
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [errorCode, setErrorCode] = useState<string | null>(null);
  const { sendKey } = useUiSettings();
  const area = useRef<HTMLTextAreaElement>(null);
  // Where the caret is (the `@` list follows the word it is in).
  const [caret, setCaret] = useState<number | null>(null);
  const insert = (next: string, at: number) => {
    setText(next);
    setCaret(at);
    requestAnimationFrame(() => area.current?.setSelectionRange(at, at));
  };
  const mentions = useMentions(sessionId, text, caret, insert);
  const commands = useCommands(sessionId, text, caret, insert);

  const add = (a: Attachment) =>
    setAttachments((list) => (list.some((x) => x.sha256 === a.sha256 && x.name === a.name) ? list : [...list, a]));

  const importAll = async (jobs: { name: string; run: () => Promise<Attachment> }[]) => {
    if (jobs.length === 0) return;
    setImporting((n) => n + jobs.length);
    await Promise.all(
      jobs.map(async (job) => {
        try {
          add(await job.run());
          setRefused((r) => r.filter((x) => x.name !== job.name));
        } catch (e) {
          const reason = errorOf(e).message;
          setRefused((r) => [...r.filter((x) => x.name !== job.name), { name: job.name, reason }]);
        } finally {
          setImporting((n) => n - 1);
        }
      }),
    );
  };

  const importOffered = (files: OfferedFile[]) =>
    importAll(files.map((f) => ({ name: f.name, run: () => ipc.importAttachment(f.token) })));

  useEffect(() => {
    if (dropped) void importOffered(dropped.files);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [dropped]);

  useEffect(() => {
    if (autoFocus) area.current?.focus();
  }, [autoFocus, sessionId]);

  // A new session starts with an empty composer.
  useEffect(() => {
    setText("");
    setAttachments([]);
    setRefused([]);
    setError(null);
  }, [sessionId]);

  const pick = async () => {
    try {
      await importOffered(await ipc.pickFiles());
    } catch (e) {
      setError(errorOf(e).message);
    }
    area.current?.focus();
  };

  const onPaste = (e: ClipboardEvent<HTMLTextAreaElement>) => {
    const files = [...e.clipboardData.items]
      .filter((i) => i.kind === "file" && i.type.startsWith("image/"))
      .map((i) => i.getAsFile())
      .filter((f): f is File => f !== null);
    if (files.length === 0) {
      // A paste that carries nothing the page can read (WebKitGTK hands the page only text,
      // so a copied screenshot arrives empty): the shell reads the clipboard's image itself.
      if ((e.clipboardData.types ?? []).length === 0 && e.clipboardData.items.length === 0) {
        e.preventDefault();
        void importAll([{ name: "pasted-image.png", run: () => ipc.importClipboardImage() }]);
      }
      return; // text pastes as usual
    }
    e.preventDefault();
    void importAll(
      files.map((f, i) => {
        const ext = f.type.split("/")[1]?.replace("jpeg", "jpg") ?? "png";
        const name = f.name && f.name !== "image.png" ? f.name : `pasted-image${files.length > 1 ? `-${i + 1}` : ""}.${ext}`;
        return { name, run: async () => ipc.importAttachmentBytes(new Uint8Array(await f.arrayBuffer()), name) };
      }),
    );
  };

  const canSend = !disabled && !sending && importing === 0 && (text.trim() !== "" || attachments.length > 0);

  const send = async () => {
    if (!canSend) return;
    setSending(true);
    setError(null);
    try {
      const refs = attachments.map((a) => ({ sha256: a.sha256, name: a.name, mime: a.mime }));
      await ipc.sendMessage(sessionId, text, refs);
      setErrorCode(null);
      setText("");
      setAttachments([]);
      setRefused([]);
    } catch (e) {
      setError(errorOf(e).message);
      setErrorCode(errorOf(e).code);
    } finally {
      setSending(false);
      area.current?.focus();
    }
  };

  const interrupt = async () => {
    if (!running) return;
    try {
      await ipc.interruptRun(running.id);
    } catch (e) {
      setError(errorOf(e).message);
    }
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (mentions.onKeyDown(e) || commands.onKeyDown(e)) return;
    if (isSendKey(sendKey, e) && !e.nativeEvent.isComposing && e.keyCode !== 229) {
      e.preventDefault();
      void send();
    } else if (e.key === "Escape" && running && !e.nativeEvent.isComposing) {
      e.preventDefault();
      void interrupt();
    }
  };

  return (
    <div className="composer" data-testid="composer">
      {(attachments.length > 0 || refused.length > 0 || importing > 0) && (
        <div className="composer-attachments">
          {attachments.map((a) => (
            <span key={a.sha256 + a.name} className="attachment" title={`${a.name} · ${formatBytes(a.size)}`}>
              <AttachmentThumb attachment={a} />
              <button
                type="button"
                className="remove"
                aria-label={`Remove ${a.name}`}
                onClick={() => setAttachments((l) => l.filter((x) => x !== a))}
              >
                ×
              </button>
            </span>
          ))}
          {importing > 0 && <span className="muted small">Adding…</span>}
          {refused.map((r) => (
            <span key={r.name} className="refused" role="alert">
              {r.reason.includes(r.name) ? (
                r.reason
              ) : (
                <>
                  <strong>{r.name}</strong>: {r.reason}
                </>
              )}
              <button
                type="button"
                className="icon-button"
                aria-label={`Dismiss ${r.name}`}
                onClick={() => setRefused((l) => l.filter((x) => x !== r))}
              >
                ×
              </button>
            </span>
          ))}
        </div>
      )}
      <MentionList state={mentions} />
      <CommandList state={commands} />
      <div className="composer-row">
        <button type="button" className="attach" onClick={pick} disabled={disabled} aria-label="Attach files" title="Attach files">
          <Icon name="paperclip" size={18} />
        </button>
        <textarea
          ref={area}
          aria-label="Message"
          placeholder={running ? "Message (queued until the current run ends)…" : sendKey === "ctrl_enter" ? "Message — Ctrl+Enter to send, Enter for a new line" : "Message — Enter to send, Shift+Enter for a new line"}
          rows={Math.min(10, Math.max(2, text.split("\n").length))}
          value={text}
          disabled={disabled}
          onChange={(e) => {
            setText(e.target.value);
            setCaret(e.target.selectionStart);
          }}
          onSelect={(e) => setCaret(e.currentTarget.selectionStart)}
          {...mentions.inputProps}
          {...commands.inputProps}
          onKeyDown={onKeyDown}
          onPaste={onPaste}
        />
        <div className="composer-buttons">
          {running && (
            <button type="button" className="interrupt" onClick={interrupt} title="Interrupt (Esc)">
              Interrupt
            </button>
          )}
          <button type="button" className="send primary" onClick={send} disabled={!canSend} title={sendKey === "ctrl_enter" ? "Send (Ctrl+Enter)" : "Send (Enter)"}>
            Send
          </button>
        </div>
      </div>
      {tools && <div className="composer-tools">{tools}</div>}
      {error && (
        <p className="composer-error" role="alert">
          {error}
          <SettingsLink code={errorCode} />
        </p>
      )}
    </div>
  );
}
