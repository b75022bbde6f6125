// Blob URLs for attachment thumbnails, read once per sha256 and shared. A small LRU keeps
// memory bounded; an evicted URL is revoked.
import { useEffect, useState } from "react";
import type { Ipc } from "../ipc";

const MAX = 64;
const cache = new Map<string, Promise<string | null>>();

function load(ipc: Ipc, sha256: string, mime: string): Promise<string | null> {
  const hit = cache.get(sha256);
  if (hit) {
    cache.delete(sha256);
    cache.set(sha256, hit); // most recently used last
    return hit;
  }
  const p = ipc
    .readAttachment(sha256)
    .then((bytes) => {
      if (typeof URL.createObjectURL !== "function") return null;
      return URL.createObjectURL(new Blob([bytes as BlobPart], { type: mime }));
    })
    .catch(() => null);
  cache.set(sha256, p);
  while (cache.size > MAX) {
    const [oldest, url] = cache.entries().next().value as [string, Promise<string | null>];
    cache.delete(oldest);
    url.then((u) => u && URL.revokeObjectURL(u)).catch(() => {});
  }
  return p;
}

/** A blob URL for an image attachment (null while loading, or when it cannot be read). */
export function useAttachmentUrl(ipc: Ipc, sha256: string, mime: string, enabled: boolean): string | null {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    if (!enabled) return;
    let live = true;
    load(ipc, sha256, mime).then((u) => live && setUrl(u));
    return () => {
      live = false;
    };
  }, [ipc, sha256, mime, enabled]);
  return url;
}
