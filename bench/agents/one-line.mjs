// A sssf-exec/1 agent that prints one stdout line of BYTES (a JSON tool_call whose result is that big,
// as a CLI reporting a huge tool result would), 1 MiB at a time as the pipe drains, then a result line.
const total = Number(process.argv[2] ?? 1024 ** 3);
const start = '{"type":"tool_call","tool":"read","args":{},"result":"';
const block = Buffer.alloc(1024 * 1024, "x");
const write = (chunk) =>
  process.stdout.write(chunk) ? undefined : new Promise((resolve) => process.stdout.once("drain", resolve));
process.stdin.resume();
process.stdin.on("end", async () => {
  await write(start);
  let left = total - start.length - 2;
  while (left > 0) {
    const chunk = left >= block.length ? block : block.subarray(0, left);
    left -= chunk.length;
    await write(chunk);
  }
  await write('"}\n');
  await write('{"type":"result","text":"{\\"status\\":\\"success\\"}"}\n');
});
