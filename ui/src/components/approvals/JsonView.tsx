import { VisibleText } from "./VisibleText";

/** Past this many values (or this deep) a value is shown as indented JSON text instead. */
const MAX_NODES = 1500;
const MAX_DEPTH = 10;

/** How many values `v` holds, counting stops once it passes `limit` (or nests too deep). */
function size(v: unknown, limit: number, depth = 0): number {
  if (depth > MAX_DEPTH) return Infinity;
  if (v === null || typeof v !== "object") return 1;
  let n = 1;
  for (const x of Array.isArray(v) ? v : Object.values(v)) {
    n += size(x, limit - n, depth + 1);
    if (n > limit) return n;
  }
  return n;
}

/** Indented JSON, never throwing (cycles or odd values come out as their string). */
export function prettyJson(v: unknown): string {
  try {
    return JSON.stringify(v, null, 2) ?? String(v);
  } catch {
    return String(v);
  }
}

function Scalar({ v }: { v: unknown }) {
  if (typeof v === "string") {
    if (v === "") return <span className="jv-empty">(empty text)</span>;
    // Long or multi-line text gets its own box that wraps and scrolls; nothing is cut.
    if (v.includes("\n") || v.length > 160) {
      return (
        <pre className="jv-block">
          <VisibleText text={v} />
        </pre>
      );
    }
    return (
      <span className="jv-string">
        <VisibleText text={v} />
      </span>
    );
  }
  if (v === null || v === undefined) return <span className="jv-empty">null</span>;
  return <span className="jv-literal">{String(v)}</span>;
}

function Node({ v }: { v: unknown }) {
  if (v === null || typeof v !== "object") return <Scalar v={v} />;
  if (Array.isArray(v)) {
    if (v.length === 0) return <span className="jv-empty">(empty list)</span>;
    return (
      <ol className="jv-list">
        {v.map((x, i) => (
          <li key={i}>
            <Node v={x} />
          </li>
        ))}
      </ol>
    );
  }
  const entries = Object.entries(v);
  if (entries.length === 0) return <span className="jv-empty">(nothing)</span>;
  return (
    <dl className="jv-object">
      {entries.map(([k, x]) => (
        <div className={x !== null && typeof x === "object" && Object.keys(x).length > 0 ? "jv-entry nested" : "jv-entry"} key={k}>
          <dt>
            <VisibleText text={k} />
          </dt>
          <dd>
            <Node v={x} />
          </dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * Any JSON value, whole: objects as key/value lists, arrays as lists, text through
 * `VisibleText`. A very large or deep value is shown as indented JSON in a scrolling box.
 */
export function JsonView({ value }: { value: unknown }) {
  if (size(value, MAX_NODES) > MAX_NODES) {
    return (
      <pre className="jv-block jv-raw">
        <VisibleText text={prettyJson(value)} />
      </pre>
    );
  }
  return (
    <div className="jv">
      <Node v={value} />
    </div>
  );
}
