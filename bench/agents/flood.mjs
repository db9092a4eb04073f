// A sssf-exec/1 agent that emits COUNT tool_call lines, each stamped with its emit time, at RATE lines/s
// (0 = as fast as it can). Lines leave in small slices, like a busy agent's stream.
const count = Number(process.argv[2] ?? 100000);
const rate = Number(process.argv[3] ?? 0);

function line(i) {
  const now = new Date().toISOString();
  return `{"type":"tool_call","tool":"bash","args":{"command":"echo ${i}"},"result":"${i}","ok":true,"duration_ms":0,"started_at":"${now}","ended_at":"${now}"}\n`;
}

process.stdin.resume();
process.stdin.on("end", () => {
  const started = performance.now();
  let i = 0;
  const step = () => {
    const due =
      rate > 0
        ? Math.min(count, Math.floor(((performance.now() - started) / 1000) * rate))
        : Math.min(count, i + 500);
    let batch = "";
    for (; i < due; i++) batch += line(i);
    if (batch) process.stdout.write(batch);
    if (i < count) setTimeout(step, rate > 0 ? 1 : 0);
    else process.stdout.write('{"type":"result","text":"{\\"status\\":\\"success\\"}"}\n');
  };
  step();
});
