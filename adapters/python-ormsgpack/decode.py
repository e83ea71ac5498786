"""ormsgpack.unpackb on the file: exit 0 decoded, 1 the library raised its error
(MsgpackDecodeError); anything else (MemoryError, RecursionError, a crash) exits 70, with
the runtime's message."""
import sys
import traceback

import ormsgpack

data = open(sys.argv[1], "rb").read()
try:
    ormsgpack.unpackb(data)
except ormsgpack.MsgpackDecodeError as e:
    print(f"MsgpackDecodeError: {e}", file=sys.stderr)
    sys.exit(1)
except BaseException:
    # Python exits 1 on an uncaught exception: that would read as a refusal.
    traceback.print_exc()
    sys.exit(70)
