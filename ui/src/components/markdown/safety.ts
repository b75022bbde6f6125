// What markdown from an agent may turn into: no raw HTML (shown as text), no script-capable
// URLs, nothing that navigates the app window.
import { defaultSchema } from "rehype-sanitize";
import type { Options as SanitizeSchema } from "rehype-sanitize";

const ALLOWED_SCHEMES = new Set(["http", "https", "mailto"]);

/** The URL if it is an absolute http, https or mailto URL, else undefined (attribute dropped). */
export function safeUrl(url: string): string | undefined {
  // Browsers ignore control characters and whitespace inside a scheme ("jav\tascript:").
  // eslint-disable-next-line no-control-regex
  const compact = url.replace(/[\u0000-\u0020\u007f-\u009f\u00ad\u200b-\u200f\u2028\u2029\ufeff]/g, "");
  const m = /^([a-z][a-z0-9+.-]*):/i.exec(compact);
  if (!m || !ALLOWED_SCHEMES.has(m[1]!.toLowerCase())) return undefined;
  if (compact !== url.trim()) return undefined; // hidden characters in a link: refuse it
  return url.trim();
}

/** GitHub's schema (rehype-sanitize's default) without anything that loads or navigates on its own. */
export const sanitizeSchema: SanitizeSchema = {
  ...defaultSchema,
  protocols: { href: ["http", "https", "mailto"], src: ["http", "https"], cite: ["http", "https"] },
  tagNames: (defaultSchema.tagNames ?? []).filter((t) => !["img", "picture", "source", "video", "audio"].includes(t)),
};
