// Search and session management commands (issue 13 items 1 and 2). Kept next to the
// components that use them; errors come back as `IpcFailure` like every other command.
import { invoke, type InvokeArgs } from "@tauri-apps/api/core";
import { IpcFailure, toIpcError, type Session } from "../../ipc";
import type { ExportFormat } from "../../generated/ExportFormat";
import type { SearchHit } from "../../generated/SearchHit";
import type { SessionFootprint } from "../../generated/SessionFootprint";

export type { ExportFormat, SearchHit, SessionFootprint };

async function call<T>(command: string, args?: InvokeArgs): Promise<T> {
  try {
    return await invoke<T>(command, args);
  } catch (raw) {
    throw new IpcFailure(toIpcError(raw));
  }
}

export const libraryApi = {
  /** Best first; `workspaceId` null searches every workspace. */
  searchMessages: (query: string, workspaceId: string | null, limit: number) =>
    call<SearchHit[]>("search_messages", { query, workspaceId, limit }),
  renameSession: (sessionId: string, title: string) => call<Session>("rename_session", { sessionId, title }),
  archiveSession: (sessionId: string, archived: boolean) => call<Session>("archive_session", { sessionId, archived }),
  sessionFootprint: (sessionId: string) => call<SessionFootprint>("session_footprint", { sessionId }),
  deleteSession: (sessionId: string) => call<null>("delete_session", { sessionId }),
  /** Opens the native save dialog; the path written, or null when the user cancelled. */
  exportSession: (sessionId: string, format: ExportFormat) => call<string | null>("export_session", { sessionId, format }),
};

export type LibraryApi = typeof libraryApi;
