// "Open Settings" next to an error a run was refused with because of its engine (missing,
// logged out, unsupported). It asks the window's navigator for Settings.
import { useNavigator } from "../../app/navigation";

// Error codes (`IpcError.code`, or a failed run's `stopReason`) that Settings can fix.
const ENGINE_CODES = ["engine_missing", "engine_not_logged_in", "engine_version_unsupported"];

export function isEngineSetupError(code: string | null | undefined): boolean {
  return code != null && ENGINE_CODES.includes(code);
}

export function SettingsLink({ code }: { code: string | null | undefined }) {
  const navigator = useNavigator();
  if (!isEngineSetupError(code)) return null;
  return (
    <button type="button" className="link-button settings-link" onClick={navigator.openSettings}>
      Open Settings
    </button>
  );
}
