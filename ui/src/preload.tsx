import { lazy, type ComponentType } from "react";

/**
 * A component from a chunk that is fetched ahead of use (`preload`). Once it is there it
 * renders straight away; `React.lazy` alone suspends on its first render even when the chunk
 * is long loaded (it learns so only through a promise callback), and React holds a retried
 * Suspense boundary back for up to 300 ms: the first session opened after start took ~400 ms
 * to show its view (issue 12, BENCHMARKS.md). Before the chunk is there it suspends as lazy does.
 */
export function preloadable<P extends object>(load: () => Promise<ComponentType<P>>) {
  let loaded: ComponentType<P> | null = null;
  const preload = () =>
    load().then((c) => {
      loaded = c;
      return c;
    });
  const Lazy = lazy(() => preload().then((c) => ({ default: c })));
  function Preloaded(props: P) {
    const C = loaded ?? Lazy;
    return <C {...props} />;
  }
  return { Component: Preloaded, preload };
}
