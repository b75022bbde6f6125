import { afterEach, describe, expect, it, vi } from "vitest";
import { GIVE_UP_MS, waitForFirstPaint } from "./startup";

type Callback = (list: { getEntries: () => { name: string }[] }) => void;

function fakeObserver() {
  const observers: Callback[] = [];
  class Fake {
    constructor(cb: Callback) {
      observers.push(cb);
    }
    observe() {}
    disconnect() {}
  }
  vi.stubGlobal("PerformanceObserver", Fake);
  return (name: string) => observers.forEach((cb) => cb({ getEntries: () => [{ name }] }));
}

async function settled(p: Promise<void>) {
  let done = false;
  void p.then(() => (done = true));
  await Promise.resolve();
  await Promise.resolve();
  return done;
}

describe("waiting for the window's first paint", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });

  it("waits in the app until the first contentful paint, not for other paint entries", async () => {
    const emit = fakeObserver();
    const waiting = waitForFirstPaint(true);
    expect(await settled(waiting)).toBe(false);
    emit("first-paint");
    expect(await settled(waiting)).toBe(false);
    emit("first-contentful-paint");
    expect(await settled(waiting)).toBe(true);
  });

  it("goes on after a while when nothing contentful is painted", async () => {
    vi.useFakeTimers();
    fakeObserver();
    const waiting = waitForFirstPaint(true);
    vi.advanceTimersByTime(GIVE_UP_MS - 1);
    expect(await settled(waiting)).toBe(false);
    vi.advanceTimersByTime(1);
    expect(await settled(waiting)).toBe(true);
  });

  it("does not wait outside the app", async () => {
    fakeObserver();
    expect(await settled(waitForFirstPaint(false))).toBe(true);
  });
});
