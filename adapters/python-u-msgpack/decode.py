"""umsgpack (u-msgpack-python) unpackb on the file: exit 0 decoded, 1 the library raised its
error (UnpackException); anything else (MemoryError, RecursionError: it recurses for each
nesting, a crash) exits 70, with the runtime's message."""
import sys
import traceback

import umsgpack

data = open(sys.argv[1], "rb").read()
try:
    umsgpack.unpackb(data)
except umsgpack.UnpackException as e:
    print(f"{type(e).__name__}: {e}", file=sys.stderr)
    sys.exit(1)
except BaseException:
    # Python exits 1 on an uncaught exception: that would read as a refusal.
    traceback.print_exc()
    sys.exit(70)
