import { describe, expect, it } from "vitest";
import { toolCallName, truncateText } from "../../src/runtimes/send-loop/tool-call-name.js";
import { truncate as clientTruncate } from "../../src/ui/client/src/format.js";
import { shortenText, sliceWholeGraphemes } from "../../src/util/shorten-text.js";
import { describeValue } from "../../src/util/zod-issues.js";

const THUMB = "👍🏽"; // a surrogate pair and a skin-tone modifier: one grapheme, four code units
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether `text` is whole thumbs (no thumb cut in half), optionally followed by `tail`. */
const wholeThumbs = (text: string, tail: string) =>
  text.endsWith(tail) &&
  text
    .slice(0, text.length - tail.length)
    .split(THUMB)
    .every((part) => part === "");

describe("cutting agent text never splits an emoji", () => {
  it("shortenText keeps ASCII as before (57 characters and ...) and whole graphemes otherwise", () => {
    expect(shortenText("x".repeat(61), 60)).toBe(`${"x".repeat(57)}...`);
    expect(shortenText("x".repeat(60), 60)).toBe("x".repeat(60));
    const cut = shortenText(THUMB.repeat(70), 60);
    expect(wholeThumbs(cut, "...")).toBe(true);
    expect(cut).toBe(`${THUMB.repeat(57)}...`);
    // 20 thumbs are 80 code units but 20 graphemes: nothing to cut.
    expect(shortenText(THUMB.repeat(20), 60)).toBe(THUMB.repeat(20));
  });

  it("config and envelope messages quote a long emoji value whole", () => {
    const quoted = describeValue(`a${THUMB.repeat(70)}`);
    expect(LONE_SURROGATE.test(quoted)).toBe(false);
    expect(quoted.endsWith('..."')).toBe(true);
  });

  it("tool call names and result snippets are cut on grapheme boundaries", () => {
    const name = toolCallName("bash", { command: `echo ${THUMB.repeat(100)}` });
    expect(LONE_SURROGATE.test(name)).toBe(false);
    expect(name.endsWith("…")).toBe(true);
    expect(wholeThumbs(truncateText(THUMB.repeat(10), 5), "…")).toBe(true);
    expect(truncateText("abcdef", 4)).toBe("abc…");
  });

  it("the UI's truncate keeps whole graphemes", () => {
    expect(clientTruncate(THUMB.repeat(10), 5)).toBe(`${THUMB.repeat(4)}…`);
    expect(clientTruncate(THUMB.repeat(5), 5)).toBe(THUMB.repeat(5));
    expect(clientTruncate("abcdef", 4)).toBe("abc…");
  });

  it("sliceWholeGraphemes bounds code units without cutting a character (the UI's prompt text)", () => {
    expect(sliceWholeGraphemes("x".repeat(10), 4)).toBe("xxxx");
    expect(sliceWholeGraphemes(`ab${THUMB}`, 4)).toBe("ab");
    expect(sliceWholeGraphemes(`ab${THUMB}`, 6)).toBe(`ab${THUMB}`);
    expect(sliceWholeGraphemes(THUMB.repeat(3), 9)).toBe(THUMB.repeat(2));
  });
});

describe("the UI's truncate on a multi-megabyte text", () => {
  it("cuts through a prefix and gives what the whole text would", () => {
    const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });
    const huge = `${THUMB.repeat(5)}${"e\u0301".repeat(3 * 1024 * 1024)}`;
    const whole = Array.from(segmenter.segment(huge.slice(0, 10_000)), (s) => s.segment);
    expect(clientTruncate(huge, 200)).toBe(`${whole.slice(0, 199).join("")}…`);
    // A prefix of combining marks holds one cluster: the whole text decides.
    const marks = `o${"\u0301".repeat(5000)}ab`;
    expect(clientTruncate(marks, 2)).toBe(`o${"\u0301".repeat(5000)}…`);
    expect(clientTruncate(marks, 3)).toBe(marks);
  });
});
