import { chmodSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RecordFiles } from "../../src/session/record-files.js";
import { makeTempDir, removeTempDir } from "../code/fixtures.js";

let dir: string;
beforeEach(() => {
  dir = makeTempDir("record-files");
});
afterEach(() => {
  chmodSync(dir, 0o700);
  removeTempDir(dir);
});

describe("RecordFiles", () => {
  it("writes every file, the last write of a file winning, all on disk once settled", async () => {
    const errors: string[] = [];
    const files = new RecordFiles((file, message) => errors.push(`${file}: ${message}`));
    const user = path.join(dir, "user.md");
    // Many writes of one file and of others, queued at once: order per file is kept.
    for (let i = 0; i < 200; i++) {
      files.write(user, `prompt ${i}\n${"x".repeat(i * 97)}`);
      files.write(path.join(dir, `p${i}.user.md`), `send ${i}\n`);
    }
    await files.settled();
    expect(readFileSync(user, "utf8")).toBe(`prompt 199\n${"x".repeat(199 * 97)}`);
    for (let i = 0; i < 200; i++)
      expect(readFileSync(path.join(dir, `p${i}.user.md`), "utf8")).toBe(`send ${i}\n`);
    expect(errors).toEqual([]);
    // Settled again with nothing queued: at once.
    await files.settled();
  });

  it("reports a file it cannot write once, never throws, and still writes the others", async () => {
    const errors: string[] = [];
    const files = new RecordFiles((file, message) => errors.push(`${path.basename(file)}: ${message}`));
    const missing = path.join(dir, "no-such-folder", "envelope.json");
    files.write(missing, "{}\n");
    files.write(missing, "{}\n");
    files.write(path.join(dir, "ok.json"), "{}\n");
    await files.settled();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^envelope\.json: ENOENT/);
    expect(readFileSync(path.join(dir, "ok.json"), "utf8")).toBe("{}\n");
  });

  it("settles writes queued while it waits", async () => {
    const files = new RecordFiles(() => undefined);
    mkdirSync(path.join(dir, "a"));
    files.write(path.join(dir, "a", "1.md"), "one");
    const settling = files.settled();
    files.write(path.join(dir, "a", "2.md"), "two");
    await settling;
    expect(readFileSync(path.join(dir, "a", "1.md"), "utf8")).toBe("one");
    expect(readFileSync(path.join(dir, "a", "2.md"), "utf8")).toBe("two");
  });
});
