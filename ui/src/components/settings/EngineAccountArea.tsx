// Settings → Engines: an engine's account, and logging it in or out from the app. Reading it
// starts the engine once (a second or more), so it is asked on a button press, never on
// mount. An API key login and a logout are confirmed by the shell in a native dialog the
// window cannot answer; a browser or device login waits here until the user finished in the
// browser (or cancels). The key itself only lives in the input until it is sent.
import { useRef, useState, type FormEvent, type MouseEvent } from "react";
import { errorOf, type IpcError } from "../../ipc";
import type { EngineAccount, EngineHealth, LoginKind, SettingsApi } from "../../ipc/settings";

type AccountApi = Pick<SettingsApi, "engineAccount" | "engineLogin" | "engineLoginWait" | "engineLoginCancel" | "engineLogout" | "openExternal">;

/** A browser or device login started, waiting for the user. */
type Waiting = { loginId: string; url: string | null; userCode: string | null };

function summary(a: EngineAccount): string {
  if (a.loggedIn === true) return [a.method, a.email, a.plan].filter(Boolean).join(" · ") || "logged in";
  if (a.loggedIn === false) return "not logged in";
  return `unknown — ${a.unavailable ?? "the engine could not say"}`;
}

function loginLabel(kind: LoginKind, name: string): string {
  if (kind === "browser") return `Log in to ${name} in the browser`;
  if (kind === "device_code") return `Log in to ${name} with a device code`;
  return `Use an API key for ${name}`;
}

export function EngineAccountArea({ h, api, onChanged }: { h: EngineHealth; api: AccountApi; onChanged: () => void }) {
  const name = h.displayName;
  const [account, setAccount] = useState<EngineAccount | null>(null);
  // What is under way, in words for the live region (`null`: nothing).
  const [busy, setBusy] = useState<string | null>(null);
  const [waiting, setWaiting] = useState<Waiting | null>(null);
  const [error, setError] = useState<IpcError | null>(null);
  const [keyOpen, setKeyOpen] = useState(false);
  const [apiKey, setApiKey] = useState("");
  // The login the user cancelled: its wait then rejects, which is no error to show.
  const cancelled = useRef<string | null>(null);

  const run = async (what: string, action: () => Promise<void>) => {
    setBusy(what);
    setError(null);
    try {
      await action();
    } catch (e) {
      setError(errorOf(e));
    } finally {
      setBusy(null);
    }
  };

  // A login or logout changed the account: the health's "Login" line too.
  const changed = (a: EngineAccount) => {
    setAccount(a);
    setError(null);
    setKeyOpen(false);
    onChanged();
  };

  const check = () => run(`Asking ${name}…`, async () => setAccount(await api.engineAccount(h.engine)));

  const open = (url: string) => {
    // No browser opening is fine: the address shows as text to copy.
    api.openExternal(url).catch(() => {});
  };

  const wait = async (w: Waiting) => {
    setWaiting(w);
    try {
      changed(await api.engineLoginWait(w.loginId));
    } catch (e) {
      if (cancelled.current !== w.loginId) setError(errorOf(e));
    } finally {
      // Only this login's wait ends here (the user may have started another since).
      setWaiting((cur) => (cur?.loginId === w.loginId ? null : cur));
    }
  };

  const login = (kind: "browser" | "device_code") =>
    run(`Starting the login with ${name}…`, async () => {
      const start = await api.engineLogin(h.engine, { kind });
      if (start.account) return changed(start.account);
      if (!start.loginId) return;
      if (start.authUrl) open(start.authUrl);
      // Not awaited: the wait is shown by `waiting`, not by the busy state.
      void wait({ loginId: start.loginId, url: start.authUrl ?? start.verificationUrl, userCode: start.userCode });
    });

  const submitKey = (e: FormEvent) => {
    e.preventDefault();
    const key = apiKey;
    // Out of state at once, whatever the outcome: it is the engine's to keep, not the window's.
    setApiKey("");
    void run("Confirm the key in the dialog…", async () => {
      const start = await api.engineLogin(h.engine, { kind: "api_key", apiKey: key });
      if (start.account) changed(start.account);
    });
  };

  const openKeyForm = () => {
    setError(null);
    setKeyOpen(true);
  };

  const cancel = async (w: Waiting) => {
    cancelled.current = w.loginId;
    setWaiting(null);
    try {
      await api.engineLoginCancel(w.loginId);
    } catch (e) {
      setError(errorOf(e));
    }
  };

  const logout = () => run("Confirm in the dialog…", async () => changed(await api.engineLogout(h.engine)));

  // The page never navigates away: any click (a middle one too) goes to the system browser.
  const link = (url: string) => {
    const go = (e: MouseEvent) => {
      e.preventDefault();
      open(url);
    };
    return (
      <a href={url} rel="noreferrer noopener" onClick={go} onAuxClick={go}>
        {url}
      </a>
    );
  };

  const disabled = busy !== null || waiting !== null;
  const loggedOut = account !== null && account.loggedIn !== true;
  const canLogIn = account !== null && account.loggedIn === false && account.loginMethods.length > 0 && !waiting;
  const live = busy ?? (waiting ? (waiting.userCode ? "Waiting for you to enter the code…" : "Waiting for you to finish in the browser…") : "");

  return (
    <div className="settings-account" role="group" aria-label={`${name} account`}>
      <div className="settings-account-head">
        <button type="button" onClick={() => void check()} disabled={disabled}>
          Check {name} account
        </button>
        <span role="status" className="muted small">
          {live}
        </span>
      </div>
      {account && (
        <p className="settings-account-line" data-testid={`engine-${h.program}-account`}>
          Account: {summary(account)}
        </p>
      )}
      {waiting && (
        <div className="settings-account-wait">
          {waiting.userCode ? (
            <p>
              Open {waiting.url ? link(waiting.url) : "the login page"} on any device and enter the code{" "}
              <code className="settings-account-code">{waiting.userCode}</code>
            </p>
          ) : (
            waiting.url && <p className="muted small">If no browser opened, open {link(waiting.url)}</p>
          )}
          <button type="button" onClick={() => void cancel(waiting)}>
            Cancel login
          </button>
        </div>
      )}
      {canLogIn && !keyOpen && (
        <div className="settings-actions">
          {account.loginMethods.map((kind) => (
            <button
              key={kind}
              type="button"
              disabled={disabled}
              onClick={() => (kind === "api_key" ? openKeyForm() : void login(kind))}
            >
              {loginLabel(kind, name)}
            </button>
          ))}
        </div>
      )}
      {canLogIn && keyOpen && (
        <form className="settings-account-key" onSubmit={submitKey}>
          <label>
            <span>{name} API key</span>
            <input
              type="password"
              autoComplete="off"
              spellCheck={false}
              value={apiKey}
              onChange={(e) => setApiKey(e.target.value)}
              disabled={disabled}
              autoFocus
            />
          </label>
          <button type="submit" disabled={disabled || apiKey.trim() === ""}>
            Log in with this key
          </button>
          <button
            type="button"
            disabled={busy !== null}
            onClick={() => {
              setApiKey("");
              setKeyOpen(false);
            }}
          >
            Cancel
          </button>
        </form>
      )}
      {loggedOut && account.loginMethods.length === 0 && (
        <>
          <p className="settings-account-line">Log in from a terminal:</p>
          <pre className="firstrun-commands" aria-label={`Login commands for ${name}`}>
            <code>{account.loginCommands.join("\n")}</code>
          </pre>
        </>
      )}
      {account?.canLogOut && (
        <div className="settings-actions">
          <button type="button" onClick={() => void logout()} disabled={disabled}>
            Log out of {name}
          </button>
        </div>
      )}
      {error && (
        <p className="field-error" role="alert" data-testid={`engine-${h.program}-account-error`}>
          {error.message}
        </p>
      )}
    </div>
  );
}
