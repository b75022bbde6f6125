import { memo, useState } from "react";
import type { AttachmentRef, TimelineItem } from "../../../ipc";
import { useIpc } from "../../../ipc/context";
import { useAttachmentUrl } from "../../../util/attachmentUrls";
import type { SessionStore } from "../../../state/sessionStore";
import { Markdown } from "../../markdown/Markdown";
import { Icon } from "../../Icon";

type Body<K extends TimelineItem["body"]["kind"]> = Extract<TimelineItem["body"], { kind: K }>;

export function AttachmentThumb({ attachment }: { attachment: AttachmentRef }) {
  const ipc = useIpc();
  const image = attachment.mime.startsWith("image/");
  const url = useAttachmentUrl(ipc, attachment.sha256, attachment.mime, image);
  if (image && url) {
    return (
      <figure className="thumb" title={attachment.name}>
        <img src={url} alt={attachment.name} />
      </figure>
    );
  }
  return (
    <span className="file-chip" title={attachment.name}>
      <Icon name={image ? "image" : "file"} size={14} />
      <span className="file-name">{attachment.name}</span>
    </span>
  );
}

export const UserMessage = memo(function UserMessage({ body }: { body: Body<"user_message"> }) {
  return (
    <div className="msg user-msg">
      <div className="msg-author">You</div>
      {body.text && <div className="user-text">{body.text}</div>}
      {body.attachments.length > 0 && (
        <div className="msg-attachments">
          {body.attachments.map((a) => (
            <AttachmentThumb key={a.sha256 + a.name} attachment={a} />
          ))}
        </div>
      )}
    </div>
  );
});

/** Markdown of one chunk, parsed again only when its text changes. */
const MessageText = memo(function MessageText({ text, streaming }: { text: string; streaming: boolean }) {
  return <Markdown text={text} streaming={streaming} />;
});

/**
 * One chunk (row) of an agent message: a long answer takes several rows, so only the ones on
 * screen are rendered. Chunk 0 is the item's own row.
 */
export function AgentMessage({ store, item, chunk }: { store: SessionStore; item: TimelineItem; chunk: number }) {
  const last = chunk === store.chunkCount(item.id) - 1;
  const streaming = item.status === "running" && last;
  return (
    <div className={`msg agent-msg${chunk > 0 ? " continued" : ""}${streaming ? " streaming" : ""}`}>
      <MessageText text={store.chunkText(item.id, chunk)} streaming={streaming} />
    </div>
  );
}

export function Reasoning({ item, body }: { item: TimelineItem; body: Body<"reasoning"> }) {
  const [open, setOpen] = useState(false);
  const streaming = item.status === "running";
  return (
    <div className="reasoning">
      <button type="button" className="disclosure" aria-expanded={open} onClick={() => setOpen(!open)}>
        <span className="chevron" aria-hidden="true">{open ? "▾" : "▸"}</span>
        {streaming ? "Thinking…" : "Reasoning"}
      </button>
      {open && (
        <div className="reasoning-body">
          <Markdown text={body.text} streaming={streaming} />
        </div>
      )}
    </div>
  );
}

export function Notice({ body }: { body: Body<"notice"> }) {
  return (
    <div className={`notice notice-${body.level}`} role={body.level === "error" ? "alert" : undefined}>
      {body.text}
    </div>
  );
}
