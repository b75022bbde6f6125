// The profile commands, as the profiles editor uses them (injectable for its tests). They
// reject with a `ProfileFailure`, which carries the core's field errors (`ProfileError.fields`)
// so the editor shows each message next to its input.
import * as commands from "./commands.generated";

export { ProfileFailure, toProfileError } from "./client";

export const profilesApi = {
  list: commands.listProfiles,
  create: commands.createProfile,
  update: commands.updateProfile,
  duplicate: commands.duplicateProfile,
  setDefault: commands.setDefaultProfile,
  remove: commands.deleteProfile,
  /** The models an engine lists (a saved profile's options, else the engine's defaults). */
  listModels: commands.listModels,
  /** The engines a profile may choose (the engine crate's registry). */
  listEngines: commands.listEngines,
  /** A saved profile's MCP servers as its engine reports them (the engine is started to ask). */
  mcpStatus: commands.mcpStatus,
};

export type ProfilesApi = typeof profilesApi;
