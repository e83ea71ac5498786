// org.msgpack:jackson-dataformat-msgpack (see pom.xml): Jackson's ObjectMapper over a
// MessagePackFactory reads the file as a tree, as a service reading untyped JSON-like data
// does: exit 0 decoded, 1 the library threw (Jackson's parse and constraint errors are
// IOExceptions; msgpack-core's own, such as a length past 2^31, MessagePackExceptions), 70 the
// runtime failed (StackOverflowError, OutOfMemoryError, anything else).
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.msgpack.core.MessagePackException;
import org.msgpack.jackson.dataformat.MessagePackFactory;

public class Decode {
    public static void main(String[] args) {
        try {
            byte[] data = Files.readAllBytes(Path.of(args[0]));
            try {
                new ObjectMapper(new MessagePackFactory()).readTree(data);
            } catch (IOException | MessagePackException e) {
                System.err.println(e);
                System.exit(1);
            }
            System.exit(0);
        } catch (Throwable t) {
            // The JVM exits 1 on an uncaught error: that would read as a refusal.
            t.printStackTrace();
            System.exit(70);
        }
    }
}
