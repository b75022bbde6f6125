import { act, render, screen } from "@testing-library/react";
import { lazy, Suspense } from "react";
import { describe, expect, it } from "vitest";
import { preloadable } from "./preload";

function View({ name }: { name: string }) {
  return <p>view {name}</p>;
}

describe("a preloaded chunk's component", () => {
  it("renders at once, without the fallback, once its chunk is there", async () => {
    const { Component, preload } = preloadable(() => Promise.resolve(View));
    await preload();
    render(
      <Suspense fallback={<p>Loading…</p>}>
        <Component name="a" />
      </Suspense>,
    );
    // Synchronously in the first commit: no fallback in between.
    expect(screen.queryByText("Loading…")).toBeNull();
    expect(screen.getByText("view a")).toBeTruthy();
  });

  it("React.lazy alone shows the fallback first even when its promise is resolved", async () => {
    const ready = Promise.resolve({ default: View });
    await ready;
    const Lazy = lazy(() => ready);
    render(
      <Suspense fallback={<p>Loading…</p>}>
        <Lazy name="b" />
      </Suspense>,
    );
    expect(screen.getByText("Loading…")).toBeTruthy();
    await act(async () => {});
  });

  it("suspends like lazy until the chunk arrives", async () => {
    let arrive: (c: typeof View) => void = () => {};
    const { Component } = preloadable(() => new Promise<typeof View>((r) => (arrive = r)));
    render(
      <Suspense fallback={<p>Loading…</p>}>
        <Component name="c" />
      </Suspense>,
    );
    expect(screen.getByText("Loading…")).toBeTruthy();
    await act(async () => arrive(View));
    expect(await screen.findByText("view c")).toBeTruthy();
  });
});
