import type { ReactNode } from "react";
import { createPortal } from "react-dom";

/**
 * A modal layer (a dialog and its backdrop), rendered at the end of `<body>`, outside the
 * app's two columns. Each column contains its own layout and paint (`.sidebar`, `.main` in
 * base.css: a keystroke in the composer redraws the composer, not the whole window), which
 * also makes each the containing block of its fixed-position descendants: a backdrop left
 * inside one would cover only that column.
 */
export function AboveApp({ children }: { children: ReactNode }) {
  return createPortal(children, document.body);
}
