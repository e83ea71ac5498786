/* msgpack-c (Debian's libmsgpack-dev) msgpack_unpack_next on the file: exit 0 decoded, 1 the
 * library refused, 3 the runtime failed (out of memory).
 *
 * msgpack-c answers MSGPACK_UNPACK_NOMEM_ERROR both when an allocation fails and when the
 * document nests deeper than its parse stack (MSGPACK_EMBED_STACK_SIZE, 32 levels): the
 * second is the library's limit, a refusal. This adapter measures the nesting itself and
 * calls only the first out of memory. */
#include <errno.h>
#include <msgpack.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* msgpack-c's parse stack, in levels. */
#define LIBRARY_DEPTH 32

/* How deep the document's containers nest before msgpack-c would stop (at most
 * LIBRARY_DEPTH + 1), walking headers only: iteratively, over input that may be cut short. */
static size_t nesting(const unsigned char *p, size_t len) {
    size_t at = 0, depth = 0, deepest = 0;
    uint64_t left[LIBRARY_DEPTH + 2]; /* items left in each open container */
    while (at < len) {
        unsigned char m = p[at++];
        uint64_t items = 0, skip = 0;
        int container = 0;
        if (m <= 0x7f || m >= 0xe0 || m == 0xc0 || m == 0xc2 || m == 0xc3) {
        } else if ((m & 0xf0) == 0x90) { container = 1; items = m & 0x0f; }
        else if ((m & 0xf0) == 0x80) { container = 1; items = 2 * (uint64_t)(m & 0x0f); }
        else if ((m & 0xe0) == 0xa0) { skip = m & 0x1f; }
        else {
            size_t n = 0;
            switch (m) {
            case 0xc4: case 0xd9: n = 1; break;
            case 0xc5: case 0xda: n = 2; break;
            case 0xc6: case 0xdb: n = 4; break;
            case 0xc7: n = 1; skip = 1; break;
            case 0xc8: n = 2; skip = 1; break;
            case 0xc9: n = 4; skip = 1; break;
            case 0xcc: case 0xd0: skip = 1; break;
            case 0xcd: case 0xd1: skip = 2; break;
            case 0xca: case 0xce: case 0xd2: skip = 4; break;
            case 0xcb: case 0xcf: case 0xd3: skip = 8; break;
            case 0xd4: skip = 2; break;
            case 0xd5: skip = 3; break;
            case 0xd6: skip = 5; break;
            case 0xd7: skip = 9; break;
            case 0xd8: skip = 17; break;
            case 0xdc: n = 2; container = 1; break;
            case 0xdd: n = 4; container = 1; break;
            case 0xde: n = 2; container = 2; break;
            case 0xdf: n = 4; container = 2; break;
            default: return deepest; /* 0xc1: msgpack-c refuses it */
            }
            if (len - at < n) return deepest;
            uint64_t v = 0;
            for (size_t i = 0; i < n; i++) v = (v << 8) | p[at + i];
            at += n;
            if (container) items = container == 2 ? 2 * v : v;
            else skip += v;
        }
        if (container && items > 0) {
            if (++depth > deepest) deepest = depth;
            if (depth > LIBRARY_DEPTH) return deepest;
            left[depth] = items;
            continue;
        }
        if (len - at < skip) return deepest;
        at += skip;
        /* The item ends: close every container it completes. */
        while (depth > 0 && --left[depth] == 0) depth--;
    }
    return deepest;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: decode FILE\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 2;
    }
    size_t cap = 1 << 16, len = 0, n;
    unsigned char *data = malloc(cap);
    while (data && (n = fread(data + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len == cap) data = realloc(data, cap *= 2);
    }
    fclose(f);
    if (!data) {
        fprintf(stderr, "reading the file: %s\n", strerror(ENOMEM));
        return 3;
    }
    msgpack_unpacked result;
    msgpack_unpacked_init(&result);
    size_t off = 0;
    msgpack_unpack_return ret = msgpack_unpack_next(&result, (const char *)data, len, &off);
    msgpack_unpacked_destroy(&result);
    switch (ret) {
    case MSGPACK_UNPACK_SUCCESS:
        return 0;
    case MSGPACK_UNPACK_EXTRA_BYTES:
        return 0; /* a document, then more: the first decoded */
    case MSGPACK_UNPACK_CONTINUE:
        fprintf(stderr, "MSGPACK_UNPACK_CONTINUE: the document is cut short\n");
        return 1;
    case MSGPACK_UNPACK_PARSE_ERROR:
        fprintf(stderr, "MSGPACK_UNPACK_PARSE_ERROR\n");
        return 1;
    case MSGPACK_UNPACK_NOMEM_ERROR:
        if (nesting(data, len) > LIBRARY_DEPTH) {
            fprintf(stderr, "MSGPACK_UNPACK_NOMEM_ERROR from nesting deeper than msgpack-c's %d levels\n",
                    LIBRARY_DEPTH);
            return 1;
        }
        fprintf(stderr, "MSGPACK_UNPACK_NOMEM_ERROR: %s\n", strerror(ENOMEM));
        return 3;
    }
    fprintf(stderr, "msgpack_unpack_next returned %d\n", (int)ret);
    return 4;
}
