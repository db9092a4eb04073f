/** The commit a root's files are compared with: HEAD read from the ref files, its tree listed once per commit. */

import { repoFacts } from "../../code/git-facts.js";
import type { RootHead } from "../write-boundary-inside.js";
import { committedTree } from "../write-boundary-links.js";
import { realPathOf } from "../write-boundary-paths.js";
import { headCommit, type RefValues, readRefs } from "./git-refs.js";

/** `root`'s HEAD and its tree (`refs`: read now when not given); null outside git. Never rejects. */
export async function rootHead(root: string, refs?: RefValues): Promise<RootHead | null> {
  const facts = await repoFacts(root);
  if (facts === null) return null;
  const places = { commonDir: realPathOf(facts.commonDir), gitDir: realPathOf(facts.gitDir) };
  const commit = headCommit(places, refs ?? readRefs(places));
  return { format: facts.format, commit, tree: await committedTree(root, commit) };
}
