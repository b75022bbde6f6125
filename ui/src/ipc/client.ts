// The one place `invoke` is called. Every command goes through `invokeCommand` (the generated
// functions in `commands.generated.ts` call it), which turns whatever Tauri rejects with
// into the command's error type: `IpcError` ({ code, message }), or `ProfileError` (the same
// with the core's field errors) for the profile commands.
import { invoke, type InvokeArgs, type InvokeOptions } from "@tauri-apps/api/core";
import type { ErrorCode } from "../generated/ErrorCode";
import type { IpcError } from "../generated/IpcError";
import type { ProfileError } from "../generated/ProfileError";
import type { ProfileFieldError } from "../generated/ProfileFieldError";

// The codes the UI knows. `Partial` so a code Rust adds never breaks the typecheck (it reads
// as `internal` until listed here); a listed code that Rust removed does fail it.
const KNOWN_CODES = {
  invalid_input: true,
  not_found: true,
  conflict: true,
  engine_missing: true,
  engine_not_logged_in: true,
  engine_version_unsupported: true,
  engine_failed: true,
  timed_out: true,
  shutting_down: true,
  busy: true,
  storage_corrupt: true,
  storage_full: true,
  storage_read_only: true,
  storage: true,
  internal: true,
} satisfies Partial<Record<ErrorCode, true>>;

function isErrorCode(code: string): code is ErrorCode {
  return Object.prototype.hasOwnProperty.call(KNOWN_CODES, code);
}

export function toIpcError(raw: unknown): IpcError {
  if (raw instanceof IpcFailure) return raw.error;
  if (raw && typeof raw === "object" && "code" in raw && "message" in raw) {
    const { code, message } = raw as { code: unknown; message: unknown };
    if (typeof code === "string" && isErrorCode(code) && typeof message === "string") {
      return { code, message };
    }
  }
  if (raw instanceof Error) return { code: "internal", message: raw.message };
  if (typeof raw === "string") return { code: "internal", message: raw };
  return { code: "internal", message: "unexpected error from the app core" };
}

export class IpcFailure extends Error {
  readonly error: IpcError;
  constructor(error: IpcError) {
    super(error.message);
    this.name = "IpcFailure";
    this.error = error;
  }
}

/** A profile command's failure: an `IpcFailure` that also carries the core's field errors. */
export class ProfileFailure extends IpcFailure {
  readonly profileError: ProfileError;
  constructor(error: ProfileError) {
    super({ code: error.code, message: error.message });
    this.name = "ProfileFailure";
    this.profileError = error;
  }
}

/** The `IpcError` of anything a command threw. */
export function errorOf(e: unknown): IpcError {
  return toIpcError(e);
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
  if (raw instanceof ProfileFailure) return raw.profileError;
  return { ...toIpcError(raw), fields: fieldsOf(raw) };
}

/** The error type a command rejects with, as the command table names it. */
export type ErrorKind = "IpcError" | "ProfileError";

/** `invoke`, with the rejection normalised to the command's error type. */
export async function invokeCommand<T>(command: string, error: ErrorKind, args?: InvokeArgs, options?: InvokeOptions): Promise<T> {
  try {
    return await invoke<T>(command, args, options);
  } catch (raw) {
    throw error === "ProfileError" ? new ProfileFailure(toProfileError(raw)) : new IpcFailure(toIpcError(raw));
  }
}
