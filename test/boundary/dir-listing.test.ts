import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { changeSinceListing, listDirectory } from "../../src/boundary/dir-listing.js";
import { useTempDir } from "../trace/trace-fixtures.js";

const dir = useTempDir("dir-listing");

describe("a shallow listing of a parent folder", () => {
  it("records files with their metadata and stored content, folders by kind alone, and sees what changed since", async () => {
    const parent = dir();
    mkdirSync(path.join(parent, "sibling-repo"));
    writeFileSync(path.join(parent, "sibling-repo/README.md"), "a neighbour\n");
    writeFileSync(path.join(parent, "notes.txt"), "mine\n");
    symlinkSync("notes.txt", path.join(parent, "link"));
    const listing = await listDirectory(parent, {
      storeUpTo: 1024,
      maxStored: 10,
      store: async (files) => new Map(files.map((file) => [file, `oid-of-${path.basename(file)}`])),
    });
    expect([...listing.keys()].sort()).toEqual(["link", "notes.txt", "sibling-repo"]);
    expect(listing.get("sibling-repo")?.kind).toBe("directory");
    expect(listing.get("notes.txt")).toMatchObject({ kind: "file", size: 5, oid: "oid-of-notes.txt" });
    expect(listing.get("link")).toMatchObject({ kind: "symlink", target: "notes.txt" });

    // Work inside a sibling folder is not a change of the listing; the folder going, or a file in its place, is.
    writeFileSync(path.join(parent, "sibling-repo/README.md"), "edited inside\n");
    const at = (name: string) => path.join(parent, name);
    expect(await changeSinceListing(at("sibling-repo"), listing.get("sibling-repo"))).toBeNull();
    rmSync(at("sibling-repo"), { recursive: true });
    expect(await changeSinceListing(at("sibling-repo"), listing.get("sibling-repo"))).toBe("deleted");
    writeFileSync(at("sibling-repo"), "now a file\n");
    expect(await changeSinceListing(at("sibling-repo"), listing.get("sibling-repo"))).toBe("modified");
    writeFileSync(at("notes.txt"), "changed\n");
    expect(await changeSinceListing(at("notes.txt"), listing.get("notes.txt"))).toBe("modified");
    expect(await changeSinceListing(at("new.txt"), undefined)).toBeNull();
  });
});
