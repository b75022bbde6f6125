import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App";
import { ipc } from "./ipc";
import { reportFirstPaint } from "./startup";
import "react-diff-view/style/index.css";
import "./styles/base.css";
import "./styles/sidebar.css";
import "./styles/session.css";
import "./styles/cards.css";
import "./styles/markdown.css";

const scriptStart = performance.timeOrigin + performance.now();

const root = document.getElementById("root");
if (root) {
  createRoot(root).render(
    <StrictMode>
      <App ipc={ipc} />
    </StrictMode>,
  );
  reportFirstPaint(scriptStart);
}
