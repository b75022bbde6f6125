import { describe, expect, it } from "vitest";
import { atStart, topLevelBranches } from "./atStart";

describe("atStart", () => {
  it("tries only patterns anchored in every branch at the start alone", () => {
    expect(topLevelBranches("^a|(b|c)|[|]|\\|d")).toEqual(["^a", "(b|c)", "[|]", "\\|d"]);
    expect(atStart(/^a|^(b|c)/).sticky).toBe(true);
    expect(atStart(/^a|b/).sticky).toBe(false);
    expect(atStart(/^a/g).sticky).toBe(false);
    expect(atStart(/^a/m).sticky).toBe(false);
    const re = atStart(/^ab/);
    expect(re.exec("ab")?.[0]).toBe("ab");
    expect(re.exec("xab")).toBeNull();
    expect(re.exec("ab")?.[0]).toBe("ab"); // lastIndex left by the last match does not count
    expect(re.test("ab")).toBe(true);
  });
});
