// "Open Settings" next to an error a run was refused with because of its engine (missing,
// logged out, unsupported). The session view only renders it; the window shell listens.
export const OPEN_SETTINGS_EVENT = "agentdesk:open-settings";

// Error codes (`IpcError.code`, or a failed run's `stopReason`) that Settings can fix.
const ENGINE_CODES = ["engine_missing", "engine_not_logged_in", "engine_version_unsupported"];

export function isEngineSetupError(code: string | null | undefined): boolean {
  return code != null && ENGINE_CODES.includes(code);
}

export function openSettings() {
  window.dispatchEvent(new CustomEvent(OPEN_SETTINGS_EVENT));
}

export function SettingsLink({ code }: { code: string | null | undefined }) {
  if (!isEngineSetupError(code)) return null;
  return (
    <button type="button" className="link-button settings-link" onClick={openSettings}>
      Open Settings
    </button>
  );
}
