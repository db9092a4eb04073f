// A sssf-exec/1 agent that streams BYTES of output as fast as the pipe takes it (non-JSON noise lines,
// every 1,000th a tool_call), then a result line.
const total = Number(process.argv[2] ?? 1024 ** 3);
const noise = `${"x".repeat(1023)}\n`;
const chunk = noise.repeat(64);
process.stdin.resume();
process.stdin.on("end", () => {
  let sent = 0;
  let calls = 0;
  const pump = () => {
    while (sent < total) {
      calls++;
      const extra =
        calls % 16 === 0
          ? `{"type":"tool_call","tool":"bash","args":{"command":"echo ${calls}"},"result":"ok","ok":true,"duration_ms":1}\n`
          : "";
      sent += chunk.length + extra.length;
      if (!process.stdout.write(chunk + extra)) return process.stdout.once("drain", pump);
    }
    process.stdout.write('{"type":"result","text":"{\\"status\\":\\"success\\"}"}\n');
  };
  pump();
});
