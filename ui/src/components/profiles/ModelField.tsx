// The profile's model and reasoning effort, chosen from what the engine lists (asked of the
// engine itself: `list_models`); the model stays free text for a custom endpoint or a model
// the list does not have.
import { useEffect, useState } from "react";
import type { Engine } from "../../generated/Engine";
import type { ModelCatalog } from "../../generated/ModelCatalog";
import type { ModelInfo } from "../../generated/ModelInfo";
import { errorProps, Field } from "./fields";

/** Lists an engine's models (with a saved profile's options when `profileId` is one of it). */
export type ListModels = (engine: Engine, profileId: string | null) => Promise<ModelCatalog>;

/** The catalog of `engine`, reloaded when it (or the profile) changes; `null` while asked. */
export function useModels(list: ListModels | undefined, engine: Engine, profileId: string | null) {
  const [catalog, setCatalog] = useState<ModelCatalog | null>(null);
  useEffect(() => {
    if (!list) return;
    let live = true;
    setCatalog(null);
    list(engine, profileId)
      .then((c) => live && setCatalog(c))
      .catch((e: unknown) => {
        const message = typeof e === "object" && e && "message" in e ? String((e as { message: unknown }).message) : String(e);
        if (live) setCatalog({ models: [], unavailable: `The models could not be listed: ${message}` });
      });
    return () => {
      live = false;
    };
  }, [list, engine, profileId]);
  return catalog;
}

/** The model a name picks (the engine's default for an empty one). */
function chosen(catalog: ModelCatalog | null, model: string): ModelInfo | undefined {
  const id = model.trim();
  return catalog?.models.find((m) => (id === "" ? m.isDefault : m.id === id));
}

interface Props {
  catalog: ModelCatalog | null;
  /** A list was asked for (the editor has a loader). */
  listing: boolean;
  model: string;
  effort: string;
  modelError: string | undefined;
  effortError: string | undefined;
  customEndpoint: boolean;
  onModel: (model: string) => void;
  onEffort: (effort: string) => void;
}

/** The select's value for "a model the list does not have" (typed in the field below it). */
const CUSTOM = "\u0000custom";

export function ModelField({ catalog, listing, model, effort, modelError, effortError, customEndpoint, onModel, onEffort }: Props) {
  const pick = chosen(catalog, model);
  const listed = (catalog?.models.length ?? 0) > 0;
  const [typing, setTyping] = useState(false);
  // A name the list lacks (or the user's choice to type one) shows the text field.
  const custom = typing || (model.trim() !== "" && pick === undefined);
  const known = model.trim() === "" || pick !== undefined;
  // Efforts of the chosen model; of every listed model when the name is one the list lacks.
  const efforts = pick ? pick.efforts : known ? [] : [...new Set((catalog?.models ?? []).flatMap((m) => m.efforts))];
  const defaultModel = catalog?.models.find((m) => m.isDefault);
  const hint = !listing
    ? undefined
    : catalog === null
      ? "Asking the engine for its models…"
      : catalog.unavailable
        ? catalog.unavailable
        : customEndpoint
          ? "These are the engine's own models; a custom endpoint may name its models differently: choose “Another model” and type its name."
          : pick
            ? pick.description || pick.displayName
            : custom
              ? "Not one of the engine's listed models: it is sent as typed."
              : undefined;
  const textField = (label: string, field: string) => (
    <Field field={field} label={label} error={modelError} hint={listed ? undefined : hint}>
      <input {...errorProps(field, modelError)} value={model} placeholder="the engine's default" spellCheck={false} onChange={(e) => onModel(e.target.value)} />
    </Field>
  );
  return (
    <>
      {listed ? (
        <>
          <Field field="modelChoice" label="Model" error={custom ? undefined : modelError} hint={hint}>
            <select
              {...errorProps("modelChoice", custom ? undefined : modelError)}
              value={custom ? CUSTOM : pick && !(model.trim() === "") ? pick.id : ""}
              onChange={(e) => {
                const v = e.target.value;
                setTyping(v === CUSTOM);
                if (v !== CUSTOM) onModel(v);
              }}
            >
              <option value="">{defaultModel ? `The engine's default (${defaultModel.displayName})` : "The engine's default"}</option>
              {catalog?.models.map((m) => (
                <option key={m.id} value={m.id}>
                  {m.displayName === m.id ? m.id : `${m.displayName} (${m.id})`}
                </option>
              ))}
              <option value={CUSTOM}>Another model (type its name)</option>
            </select>
          </Field>
          {custom && textField("Model name", "model")}
        </>
      ) : (
        textField("Model", "model")
      )}
      {(efforts.length > 0 || effort !== "") && (
        <Field field="engineOptions.reasoningEffort" label="Reasoning effort" error={effortError}>
          <select {...errorProps("engineOptions.reasoningEffort", effortError)} value={effort} onChange={(e) => onEffort(e.target.value)}>
            <option value="">{pick?.defaultEffort ? `The model's default (${pick.defaultEffort})` : "The model's default"}</option>
            {efforts.map((level) => (
              <option key={level} value={level}>
                {level}
              </option>
            ))}
            {effort !== "" && !efforts.includes(effort) && <option value={effort}>{effort} (not listed for this model)</option>}
          </select>
        </Field>
      )}
    </>
  );
}
