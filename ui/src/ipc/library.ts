// Search and session management (the sidebar's search box and session actions), injectable
// for their tests; errors come back as `IpcFailure` like every other command.
import type { ExportFormat } from "../generated/ExportFormat";
import type { SearchHit } from "../generated/SearchHit";
import type { SessionFootprint } from "../generated/SessionFootprint";
import * as commands from "./commands.generated";

export type { ExportFormat, SearchHit, SessionFootprint };

export const libraryApi = {
  /** Best first; `workspaceId` null searches every workspace. */
  searchMessages: (query: string, workspaceId: string | null, limit: number) => commands.searchMessages(query, workspaceId, limit),
  renameSession: commands.renameSession,
  archiveSession: commands.archiveSession,
  sessionFootprint: commands.sessionFootprint,
  deleteSession: commands.deleteSession,
  /** Opens the native save dialog; the path written, or null when the user cancelled. */
  exportSession: commands.exportSession,
};

export type LibraryApi = typeof libraryApi;
