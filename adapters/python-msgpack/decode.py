"""msgpack.unpackb on the file: exit 0 decoded, 1 the library raised an error; anything
else (MemoryError, a crash) exits otherwise, with the runtime's message."""
import sys
import traceback

import msgpack

data = open(sys.argv[1], "rb").read()
try:
    msgpack.unpackb(data)
except (msgpack.UnpackException, ValueError, TypeError) as e:
    print(f"{type(e).__name__}: {e}", file=sys.stderr)
    sys.exit(1)
except BaseException:
    # Python exits 1 on an uncaught exception: that would read as a refusal.
    traceback.print_exc()
    sys.exit(70)
