"""msgpack.Unpacker: feed the file, then unpack every value (exit 0 decoded, 1 the library
raised an error). With a second file, the stream reuse mode: after the first file's error,
feed the valid document to the same Unpacker and answer recovered, refused-again,
desynchronised or no-error."""
import sys
import traceback

import msgpack

ERRORS = (msgpack.UnpackException, ValueError, TypeError)


def drain(unpacker):
    """Unpacks every complete value: the error or None, and where the last value ended."""
    end = 0
    try:
        for _ in unpacker:
            end = unpacker.tell()
    except ERRORS as e:
        return e, end
    return None, end


def main():
    data = open(sys.argv[1], "rb").read()
    unpacker = msgpack.Unpacker()
    try:
        unpacker.feed(data)
    except ERRORS as e:
        error, end = e, 0
    else:
        error, end = drain(unpacker)
    if len(sys.argv) < 3:
        # Iteration stops where the data ends: a value cut short is an error here.
        if error is None and end != len(data):
            error = msgpack.OutOfData("the data ends inside a value")
        if error is not None:
            print(f"{type(error).__name__}: {error}", file=sys.stderr)
            return 1
        return 0
    if error is None:
        print("no-error")
        return 0
    valid = open(sys.argv[2], "rb").read()
    try:
        unpacker.feed(valid)
        got = unpacker.unpack()
    except ERRORS as e:
        print("refused-again")
        print(f"{type(e).__name__}: {e}", file=sys.stderr)
        return 0
    if got == msgpack.unpackb(valid):
        print("recovered")
    else:
        print(f"desynchronised\n{repr(got)[:80]} came back")
    return 0


try:
    sys.exit(main())
except SystemExit:
    raise
except BaseException:
    # Python exits 1 on an uncaught exception: that would read as a refusal.
    traceback.print_exc()
    sys.exit(70)
