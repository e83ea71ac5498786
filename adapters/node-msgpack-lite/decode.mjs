// msgpack-lite decode() on the file: exit 0 decoded, 1 the library threw, 70 the runtime
// failed.
import { readFileSync } from "node:fs";
import msgpack from "msgpack-lite";

// V8 throws RangeError both for a library's own checks and for a stack overflow: the
// overflow is the runtime failing, a crash, not the library refusing.
function exitIfRuntimeFailure(e) {
  if (e instanceof RangeError && /Maximum call stack size exceeded/.test(e.message)) {
    console.error(`RangeError: Maximum call stack size exceeded (a stack overflow)\n${e.stack}`);
    process.exit(70);
  }
}

const data = readFileSync(process.argv[2]);
try {
  msgpack.decode(data);
} catch (e) {
  exitIfRuntimeFailure(e);
  console.error(String(e));
  process.exit(1);
}
