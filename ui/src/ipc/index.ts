// The only module that talks to Rust. Every command goes through `call`, which turns
// whatever Tauri rejects with into an `IpcError` ({ code, message }).
import { invoke } from "@tauri-apps/api/core";
import type { AppInfo } from "../generated/AppInfo";
import type { ErrorCode } from "../generated/ErrorCode";
import type { IpcError } from "../generated/IpcError";
import type { Workspace } from "../generated/Workspace";

export type { AppInfo, ErrorCode, IpcError, Workspace };

const CODES: readonly ErrorCode[] = ["invalid_input", "not_found", "conflict", "storage", "internal"];

export function toIpcError(raw: unknown): IpcError {
  if (raw && typeof raw === "object" && "code" in raw && "message" in raw) {
    const { code, message } = raw as { code: unknown; message: unknown };
    if (typeof code === "string" && (CODES as readonly string[]).includes(code) && typeof message === "string") {
      return { code: code as ErrorCode, message };
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

async function call<T>(command: string, args?: Record<string, unknown>): Promise<T> {
  try {
    return await invoke<T>(command, args);
  } catch (raw) {
    throw new IpcFailure(toIpcError(raw));
  }
}

export const ipc = {
  appInfo: () => call<AppInfo>("app_info"),
  listWorkspaces: () => call<Workspace[]>("list_workspaces"),
  addWorkspace: (path: string, name?: string) => call<Workspace>("add_workspace", { path, name: name ?? null }),
  removeWorkspace: (id: string) => call<null>("remove_workspace", { id }),
  pickFolder: () => call<string | null>("pick_folder"),
};

export type Ipc = typeof ipc;
