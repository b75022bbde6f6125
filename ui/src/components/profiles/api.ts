// The profile commands. Their failures carry the core's field errors (`ProfileError.fields`),
// which the app-wide `ipc.call` drops, so the editor has its own small client.
import { invoke } from "@tauri-apps/api/core";
import { toIpcError, type Profile } from "../../ipc";
import type { ProfileError } from "../../generated/ProfileError";
import type { ProfileFieldError } from "../../generated/ProfileFieldError";
import type { ProfileSpec } from "../../generated/ProfileSpec";

export class ProfileFailure extends Error {
  readonly error: ProfileError;
  constructor(error: ProfileError) {
    super(error.message);
    this.name = "ProfileFailure";
    this.error = error;
  }
}

function fieldsOf(raw: unknown): ProfileFieldError[] {
  if (!raw || typeof raw !== "object" || !("fields" in raw)) return [];
  const fields = (raw as { fields: unknown }).fields;
  if (!Array.isArray(fields)) return [];
  return fields.filter(
    (f): f is ProfileFieldError =>
      !!f && typeof f === "object" && typeof (f as ProfileFieldError).field === "string" && typeof (f as ProfileFieldError).message === "string",
  );
}

/** A `ProfileError` from anything a command threw. */
export function toProfileError(raw: unknown): ProfileError {
  if (raw instanceof ProfileFailure) return raw.error;
  return { ...toIpcError(raw), fields: fieldsOf(raw) };
}

async function call<T>(command: string, args: Record<string, unknown>): Promise<T> {
  try {
    return await invoke<T>(command, args);
  } catch (raw) {
    throw new ProfileFailure(toProfileError(raw));
  }
}

export const profilesApi = {
  list: (workspaceId: string) => call<Profile[]>("list_workspace_profiles", { workspaceId }),
  create: (workspaceId: string, spec: ProfileSpec) => call<Profile>("create_profile", { workspaceId, spec }),
  update: (id: string, spec: ProfileSpec) => call<Profile>("update_profile", { id, spec }),
  duplicate: (id: string) => call<Profile>("duplicate_profile", { id }),
  setDefault: (id: string) => call<null>("set_default_profile", { id }),
  remove: (id: string) => call<null>("delete_profile", { id }),
};

export type ProfilesApi = typeof profilesApi;
