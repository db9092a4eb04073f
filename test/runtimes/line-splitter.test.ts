import { StringDecoder } from "node:string_decoder";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type CappedLine,
  CUT_WORD_UNITS,
  capMarker,
  createLineSplitter,
  LINE_HEAD_BYTES,
  LINE_TAIL_BYTES,
} from "../../src/runtimes/send-loop/line-splitter.js";

/** Feeds `chunks` through a splitter; returns every line and every cap it reported. */
function split(
  chunks: Iterable<string>,
  options: { headBytes?: number; tailBytes?: number; cutWordUnits?: number } = { cutWordUnits: 0 },
) {
  const lines: string[] = [];
  const caps: CappedLine[] = [];
  const splitter = createLineSplitter((batch) => lines.push(...batch), {
    ...options,
    onCapped: (cap) => caps.push(cap),
  });
  for (const chunk of chunks) splitter.push(chunk);
  splitter.end();
  return { lines, caps };
}

const bytes = (text: string) => Buffer.byteLength(text);
/** No lone surrogate: UTF-8 round-trips it unchanged (a lone half becomes U+FFFD). */
const wellFormed = (text: string) => Buffer.from(text).toString("utf8") === text;

const space = /^[\t\n\v\f\r ]$/;

/**
 * The reference cap, code point by code point: the longest head and tail that fit, less the word each
 * cut went through (at most `cutWordUnits` UTF-16 units, whole code points).
 */
function expectedCap(
  line: string,
  headBytes: number,
  tailBytes: number,
  cutWordUnits = 0,
): { text: string; dropped: number } {
  const total = bytes(line);
  if (total <= headBytes + tailBytes) return { text: line, dropped: 0 };
  const points = Array.from(line);
  let head = "";
  for (const point of points) {
    if (bytes(head) + bytes(point) > headBytes) break;
    head += point;
  }
  let tail = "";
  for (const point of points.reverse()) {
    if (bytes(tail) + bytes(point) > tailBytes) break;
    tail = point + tail;
  }
  const headPoints = Array.from(head);
  let taken = 0;
  while (headPoints.length > 0 && !space.test(headPoints.at(-1) as string)) {
    const size = (headPoints.at(-1) as string).length;
    if (taken + size > cutWordUnits) {
      // A pair straddling the limit goes whole.
      if (taken < cutWordUnits) headPoints.pop();
      break;
    }
    taken += size;
    headPoints.pop();
  }
  const tailPoints = Array.from(tail);
  taken = 0;
  while (tailPoints.length > 0 && !space.test(tailPoints[0] as string)) {
    const size = (tailPoints[0] as string).length;
    if (taken + size > cutWordUnits) {
      if (taken < cutWordUnits) tailPoints.shift();
      break;
    }
    taken += size;
    tailPoints.shift();
  }
  head = headPoints.join("");
  tail = tailPoints.join("");
  const dropped = total - bytes(head) - bytes(tail);
  return { text: `${head}${capMarker(dropped)}${tail}`, dropped };
}

describe("line splitter", () => {
  it("splits lines across chunks, drops blank lines and the \\r of CRLF", () => {
    const { lines, caps } = split(['{"a":', "1}\r\n\n  \nsec", "ond\nthird"]);
    expect(lines).toEqual(['{"a":1}', "second", "third"]);
    expect(caps).toEqual([]);
  });

  it("keeps a line of exactly head + tail bytes whole, and caps one byte more", () => {
    expect(split(["a".repeat(15), "\n"], { headBytes: 10, tailBytes: 5, cutWordUnits: 0 }).lines).toEqual([
      "a".repeat(15),
    ]);
    const { lines, caps } = split([`${"h".repeat(10)}x${"t".repeat(5)}\n`], {
      headBytes: 10,
      tailBytes: 5,
      cutWordUnits: 0,
    });
    expect(lines).toEqual([`${"h".repeat(10)}${capMarker(1)}${"t".repeat(5)}`]);
    expect(caps).toEqual([{ lineBytes: 16, headBytes: 10, tailBytes: 5, droppedBytes: 1 }]);
  });

  it("cuts on code point boundaries: no half of a surrogate pair or of a UTF-8 sequence", () => {
    // 😀 is 4 bytes (2 UTF-16 units), é 2 bytes, € 3 bytes.
    const line = `ab😀cd${"x".repeat(20)}é€😀`;
    const { lines, caps } = split([line, "\n"], { headBytes: 4, tailBytes: 8, cutWordUnits: 0 });
    expect(lines).toEqual([`ab${capMarker(bytes(line) - 2 - 7)}€😀`]);
    expect(caps[0]).toMatchObject({ headBytes: 2, tailBytes: 7 });
    expect(wellFormed(lines[0] as string)).toBe(true);
  });

  it("caps a line that arrives whole inside one chunk, among short ones", () => {
    const long = `${"h".repeat(100)}${"m".repeat(1000)}${"t".repeat(100)}`;
    const { lines, caps } = split([`one\n${long}\ntwo\n`], {
      headBytes: 100,
      tailBytes: 100,
      cutWordUnits: 0,
    });
    expect(lines).toEqual(["one", `${"h".repeat(100)}${capMarker(1000)}${"t".repeat(100)}`, "two"]);
    expect(caps).toHaveLength(1);
  });

  it("caps a 768 MiB line (longer than V8's largest string) fed in 1 MiB chunks", () => {
    const MiB = 1024 * 1024;
    const first = `{"type":"tool_call","result":"${"h".repeat(MiB - 30)}`;
    const filler = "é".repeat(MiB / 2); // 1 MiB of 2-byte characters
    const last = `${"€".repeat(100)}😀"}`;
    const total = bytes(first) + 766 * MiB + bytes(last);
    expect(total).toBeGreaterThan(767 * MiB);
    function* chunks(): Generator<string> {
      yield first;
      for (let i = 0; i < 766; i++) yield filler;
      yield `${last}\n{"type":"result","text":"done"}\n`;
    }
    // The real defaults: the word each cut went through (runs of é here) goes too, CUT_WORD_UNITS long.
    const { lines, caps } = split(chunks(), {});
    expect(lines).toHaveLength(2);
    expect(lines[1]).toBe('{"type":"result","text":"done"}');
    const capped = lines[0] as string;
    const headBytes = LINE_HEAD_BYTES - 2 * CUT_WORD_UNITS;
    const tailBytes = LINE_TAIL_BYTES - 2 * CUT_WORD_UNITS;
    const droppedBytes = total - headBytes - tailBytes;
    expect(caps).toEqual([{ lineBytes: total, headBytes, tailBytes, droppedBytes }]);
    const marker = capMarker(droppedBytes);
    const at = capped.indexOf(marker);
    const head = capped.slice(0, at);
    const tail = capped.slice(at + marker.length);
    expect(head.startsWith(first)).toBe(true);
    expect(head.slice(first.length)).toBe("é".repeat((headBytes - MiB) / 2));
    expect(tail.endsWith(last)).toBe(true);
    expect(tail.slice(0, -last.length)).toBe("é".repeat((tailBytes - bytes(last)) / 2));
    expect(wellFormed(capped)).toBe(true);
  });

  it("drops the word each cut went through, so no half of a secret is kept", () => {
    const secret = `sk-ant-${"S".repeat(40)}`;
    // The head cut falls 10 characters into one copy of the secret, the tail cut 30 before another's end.
    const line = `${"a ".repeat(20)}${secret} ${"b ".repeat(500)}${secret} ${"c ".repeat(20)}`;
    const { lines, caps } = split([line, "\n"], { headBytes: 50, tailBytes: 71, cutWordUnits: 100 });
    expect(lines).toEqual([`${"a ".repeat(20)}${capMarker(caps[0]?.droppedBytes ?? 0)} ${"c ".repeat(20)}`]);
    expect(caps[0]).toMatchObject({ headBytes: 40, tailBytes: 41 });
  });

  // A fixed seed: the same cases on every run, so a failure reproduces.
  const settings = { seed: 0x11_4e_ca_95, numRuns: 1000 };

  it("equals head + marker + tail of every line, for any text, caps and chunking of the bytes", () => {
    const unit = fc.oneof(
      fc.constantFrom("\n", "\r", " ", "é", "€", "😀"),
      fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
    );
    const text = fc.string({ unit, maxLength: 300 });
    fc.assert(
      fc.property(
        text,
        fc.nat({ max: 40 }),
        fc.nat({ max: 40 }),
        fc.array(fc.nat({ max: 2000 }), { maxLength: 30 }),
        fc.nat({ max: 12 }),
        (input, headBytes, tailBytes, cuts, cutWordUnits) => {
          const encoded = Buffer.from(input);
          // The stream arrives cut at arbitrary byte offsets and is decoded as spawn-agent does.
          const offsets = [...new Set(cuts.map((cut) => cut % (encoded.length + 1)))].sort((a, b) => a - b);
          const decoder = new StringDecoder("utf8");
          const chunks: string[] = [];
          let from = 0;
          for (const offset of [...offsets, encoded.length]) {
            chunks.push(decoder.write(encoded.subarray(from, offset)));
            from = offset;
          }
          chunks.push(decoder.end());
          const { lines, caps } = split(chunks, { headBytes, tailBytes, cutWordUnits });

          const expected: string[] = [];
          const dropped: number[] = [];
          for (const line of input.split("\n")) {
            const cap = expectedCap(line, headBytes, tailBytes, cutWordUnits);
            if (bytes(line) > headBytes + tailBytes) dropped.push(cap.dropped);
            const kept = cap.text.endsWith("\r") ? cap.text.slice(0, -1) : cap.text;
            if (kept.trim() !== "") expected.push(kept);
          }
          expect(lines).toEqual(expected);
          expect(caps.map((cap) => cap.droppedBytes)).toEqual(dropped);
          for (const cap of caps) {
            expect(cap.lineBytes).toBe(cap.headBytes + cap.droppedBytes + cap.tailBytes);
            expect(cap.headBytes).toBeLessThanOrEqual(headBytes);
            expect(cap.tailBytes).toBeLessThanOrEqual(tailBytes);
          }
          for (const line of lines) expect(wellFormed(line)).toBe(true);
        },
      ),
      settings,
    );
  });

  it("caps one line fed in many small pieces the same way (the rolling tail drops whole pieces)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: "grapheme", minLength: 1, maxLength: 50 }), {
          minLength: 1,
          maxLength: 80,
        }),
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 1, max: 60 }),
        (pieces, headBytes, tailBytes) => {
          const line = pieces.join("").replaceAll("\n", " ");
          const { lines, caps } = split([...pieces.map((piece) => piece.replaceAll("\n", " ")), "\n"], {
            headBytes,
            tailBytes,
            cutWordUnits: 0,
          });
          const cap = expectedCap(line, headBytes, tailBytes);
          const kept = cap.text.endsWith("\r") ? cap.text.slice(0, -1) : cap.text;
          expect(lines).toEqual(kept.trim() === "" ? [] : [kept]);
          expect(caps.length).toBe(bytes(line) > headBytes + tailBytes ? 1 : 0);
        },
      ),
      settings,
    );
  });
});
