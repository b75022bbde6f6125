import type { Approval, Run, TimelineItem } from "../ipc";
import { approval, run } from "./fakeIpc";

let seq = 0;
export function item(runId: string, key: string, body: TimelineItem["body"], over: Partial<TimelineItem> = {}): TimelineItem {
  return { id: `${runId}:${key}`, sessionId: "s1", runId, seq: seq++, status: "completed", body, createdAt: 1000 + seq, updatedAt: 1000 + seq, ...over };
}
export const user = (runId: string, text: string) => item(runId, "user", { kind: "user_message", text, attachments: [] });
export const agent = (runId: string, key: string, text: string, status: TimelineItem["status"] = "completed") =>
  item(runId, key, { kind: "agent_message", text }, { status });
export const tool = (runId: string, key: string, over: Partial<Extract<TimelineItem["body"], { kind: "tool" }>> = {}) =>
  item(runId, key, { kind: "tool", toolKind: "command", name: "shell", input: { command: "ls", cwd: "/repo" }, output: "", exitCode: null, files: [], approvalId: null, ...over });

export function reset(items: TimelineItem[], runs: Run[] = [], approvals: Approval[] = [], before: number | null = null) {
  return { op: "reset" as const, items, before, runs, approvals };
}
export { approval, run };
