import { configure } from "@testing-library/react";
import { flushNow, storeOptions } from "../state/sessionStore";

// Tests see store changes at once (the window waits for the next animation frame).
storeOptions.scheduler = flushNow;

// `findBy…` / `waitFor` wait up to 5 s, not testing-library's 1 s: on a loaded 2-core CI
// machine (the suites run in parallel workers) a few chained fake-IPC answers and renders took
// longer than 1 s (the model picker's listing, seen on CI). A failing wait still fails.
configure({ asyncUtilTimeout: 5_000 });
