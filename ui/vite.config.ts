/// <reference types="vitest/config" />
import { defineConfig } from "vite";

// No React plugin: esbuild compiles TSX with the automatic runtime, and Vite's full-page
// reload is the live reload `tauri dev` needs (fast refresh would need an inline script,
// which our CSP forbids).
// SOURCEMAP=1 for profiling (scripts/stream-bench.mjs with PROFILE=1): readable names.
const profiling = (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env.SOURCEMAP === "1";

export default defineConfig({
  clearScreen: false,
  esbuild: { jsx: "automatic" },
  server: { port: 5173, strictPort: true, host: "localhost" },
  resolve: {
    // Tauri freezes Object.prototype (`freezePrototype`), and lodash's CommonJS build assigns
    // `valueOf`/`toString` on its prototypes at load, which then throws in module (strict)
    // code: the chunk that renders diffs died at import. lodash-es defines each function in
    // its own module and assigns nothing shared. (react-diff-view is imported from its
    // per-module `esm/` build for the same reason: its bundled build inlines diff-match-patch,
    // which assigns `prototype.toString`.)
    alias: [{ find: /^lodash$/, replacement: "lodash-es" }],
  },
  build: {
    outDir: "dist",
    target: "es2022",
    // Tauri's CSP forbids inline scripts and styles: keep every asset a file.
    assetsInlineLimit: 0,
    sourcemap: profiling,
    minify: !profiling,
  },
  test: {
    environment: "jsdom",
    include: ["src/**/*.test.ts", "src/**/*.test.tsx"],
    setupFiles: ["src/test/setup.ts"],
    // Rendering a 200 KB answer in jsdom takes seconds on a busy machine.
    testTimeout: 30_000,
  },
});
