// org.msgpack:msgpack-core (see pom.xml) unpackValue() on the file: exit 0 decoded, 1 the
// library threw. With a second file, the stream reuse mode: after the first file's error, the
// same MessageUnpacker is reset to the valid document and answers recovered, refused-again,
// desynchronised or no-error.
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessagePackException;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.core.buffer.ArrayBufferInput;
import org.msgpack.value.Value;

public class Decode {
    public static void main(String[] args) {
        try {
            System.exit(run(args));
        } catch (Throwable t) {
            // The JVM exits 1 on an uncaught error: that would read as a refusal.
            t.printStackTrace();
            System.exit(70);
        }
    }

    static int run(String[] args) throws IOException {
        byte[] data = Files.readAllBytes(Path.of(args[0]));
        MessageUnpacker unpacker = MessagePack.newDefaultUnpacker(data);
        try {
            unpacker.unpackValue();
        } catch (MessagePackException | IOException e) {
            if (args.length < 2) {
                System.err.println(e);
                return 1;
            }
            byte[] valid = Files.readAllBytes(Path.of(args[1]));
            unpacker.reset(new ArrayBufferInput(valid));
            Value got;
            try {
                got = unpacker.unpackValue();
            } catch (MessagePackException | IOException again) {
                System.out.println("refused-again");
                System.err.println(again);
                return 0;
            }
            Value want = MessagePack.newDefaultUnpacker(valid).unpackValue();
            if (got.equals(want)) {
                System.out.println("recovered");
            } else {
                String came = got.toString();
                System.out.println("desynchronised");
                System.out.println(came.substring(0, Math.min(80, came.length())) + " came back");
            }
            return 0;
        }
        if (args.length >= 2) {
            System.out.println("no-error");
        }
        return 0;
    }
}
