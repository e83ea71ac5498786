// msgpackr unpack() on the file: exit 0 decoded, 1 the library threw, 70 the runtime failed.
// With a second file, the stream reuse mode: after the first file's error, the valid document
// goes to the same Unpackr, which answers recovered, refused-again, desynchronised or
// no-error (the value is compared with a fresh Unpackr's: the module's unpack() has other
// options).
import { readFileSync } from "node:fs";
import { inspect, isDeepStrictEqual } from "node:util";
import { Unpackr, unpack } from "msgpackr";

// V8 throws RangeError both for the library's own limits ("Insufficient data") and for a
// stack overflow: the overflow is the runtime failing, a crash, not the library refusing.
function exitIfRuntimeFailure(e) {
  if (e instanceof RangeError && /Maximum call stack size exceeded/.test(e.message)) {
    console.error(`RangeError: Maximum call stack size exceeded (a stack overflow)\n${e.stack}`);
    process.exit(70);
  }
}

const [file, valid] = process.argv.slice(2);
const data = readFileSync(file);
if (valid === undefined) {
  try {
    unpack(data);
  } catch (e) {
    exitIfRuntimeFailure(e);
    console.error(String(e));
    process.exit(1);
  }
} else {
  const decoder = new Unpackr();
  let failed = false;
  try {
    decoder.unpack(data);
  } catch (e) {
    exitIfRuntimeFailure(e);
    failed = true;
  }
  if (!failed) {
    console.log("no-error");
  } else {
    const document = readFileSync(valid);
    try {
      const got = decoder.unpack(document);
      if (isDeepStrictEqual(got, new Unpackr().unpack(document))) {
        console.log("recovered");
      } else {
        console.log(`desynchronised\n${inspect(got).slice(0, 80)} came back`);
      }
    } catch (e) {
      exitIfRuntimeFailure(e);
      console.log("refused-again");
      console.error(String(e));
    }
  }
}
