// msgpackr unpack() on the file: exit 0 decoded, 1 the library threw. With a second
// file, the stream reuse mode: after the first file's error, the valid document goes to the
// same Unpackr, which answers recovered, refused-again, desynchronised or no-error (the value
// is compared with a fresh Unpackr's: the module's unpack() has other options).
import { readFileSync } from "node:fs";
import { inspect, isDeepStrictEqual } from "node:util";
import { Unpackr, unpack } from "msgpackr";

const [file, valid] = process.argv.slice(2);
const data = readFileSync(file);
if (valid === undefined) {
  try {
    unpack(data);
  } catch (e) {
    console.error(String(e));
    process.exit(1);
  }
} else {
  const decoder = new Unpackr();
  let failed = false;
  try {
    decoder.unpack(data);
  } catch {
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
      console.log("refused-again");
      console.error(String(e));
    }
  }
}
