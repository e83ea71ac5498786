//! The attacks that hit any MessagePack decoder whatever the type: recursion bombs around the
//! default depth limit, headers claiming the largest length of each width, amplification
//! (many one-byte values) and malformed input. Encoded by hand, never by hardpack's encoder,
//! so an encoder bug cannot hide in the payloads that test the decoder.

use crate::payload::Payload;

/// hardpack's default `max_depth`: the bombs sit just below, at and just past it.
const DEFAULT_MAX_DEPTH: usize = 128;

/// Every generic attack, in a fixed order (a report can name one by its index): recursion
/// bombs (`bomb-*`, each also cut short), length claims (`huge-*`), amplification (`amp-*`)
/// and malformed input (`bad-*`). These are the seeds `scripts/gen-corpus` commits for the
/// fuzz targets, byte for byte.
pub fn generic() -> Vec<Payload> {
    let mut out = Vec::new();
    out.extend(bombs());
    out.extend(huge_claims());
    out.extend(amplification());
    out.extend(malformed());
    out
}

fn repeat(bytes: &[u8], times: usize) -> Vec<u8> {
    bytes.repeat(times)
}

fn bombs() -> Vec<Payload> {
    let d = DEFAULT_MAX_DEPTH;
    let mut out: Vec<Payload> = Vec::new();
    // Just below, at and just past the default limit, and past rmpv's (1,000): only as deep
    // as it must be (a fuzzer's time goes to mutating, not to re-reading 100 KB bombs).
    for depth in [d - 1, d, d + 1, 1000] {
        let capped = depth.min(50_000);
        out.push(Payload::new(
            format!("bomb-arrays-{depth}"),
            format!("{depth} nested arrays of one element"),
            [repeat(&[0x91], depth), vec![0xc0]].concat(),
        ));
        out.push(Payload::new(
            format!("bomb-map-values-{depth}"),
            format!("{capped} nested maps through their values"),
            [repeat(&[0x81, 0xc0], capped), vec![0xc0]].concat(),
        ));
        out.push(Payload::new(
            format!("bomb-map-keys-{depth}"),
            format!("{capped} nested maps through their keys"),
            [repeat(&[0x81], capped), repeat(&[0xc0], capped + 1)].concat(),
        ));
        let pairs = (depth / 2).min(33_000);
        out.push(Payload::new(
            format!("bomb-mixed-{depth}"),
            format!("{pairs} levels of an array holding a map"),
            [repeat(&[0x91, 0x81, 0xc0], pairs), vec![0xc0]].concat(),
        ));
    }
    for depth in [d - 1, d, d + 1, 200] {
        out.push(Payload::new(
            format!("bomb-array32-one-{depth}"),
            format!("{depth} nested array 32 headers of one element"),
            [repeat(&[0xdd, 0, 0, 0, 1], depth), vec![0xc0]].concat(),
        ));
        out.push(Payload::new(
            format!("bomb-map32-one-keys-{depth}"),
            format!("{depth} nested map 32 headers of one entry, through their keys"),
            [
                repeat(&[0xdf, 0, 0, 0, 1], depth),
                repeat(&[0xc0], depth + 1),
            ]
            .concat(),
        ));
    }
    // Around rmpv's depth limit (512), which counts a str or ext leaf as one more level.
    for depth in [510, 511, 512] {
        out.push(Payload::new(
            format!("bomb-arrays-{depth}-str-leaf"),
            format!("{depth} nested arrays around a str"),
            [repeat(&[0x91], depth), vec![0xa1, b'a']].concat(),
        ));
        out.push(Payload::new(
            format!("bomb-arrays-{depth}-ext-leaf"),
            format!("{depth} nested arrays around an ext"),
            [repeat(&[0x91], depth), vec![0xd4, 0x01, 0x00]].concat(),
        ));
    }
    let truncated: Vec<Payload> = out
        .iter()
        .map(|p| {
            Payload::new(
                format!("{}-truncated", p.id),
                format!("{}, cut after two thirds", p.what),
                p.bytes[..p.bytes.len() * 2 / 3].to_vec(),
            )
        })
        .collect();
    out.extend(truncated);
    out.push(Payload::new(
        "bomb-arrays-unterminated",
        "1000 nested arrays and no leaf",
        repeat(&[0x91], 1000),
    ));
    out
}

fn huge_claims() -> Vec<Payload> {
    let max = |id: &str, what: &str, bytes: &[u8]| {
        Payload::new(format!("huge-{id}"), what.to_string(), bytes.to_vec())
    };
    vec![
        max(
            "array16-max",
            "array 16 claiming 65535 elements",
            &[0xdc, 0xff, 0xff],
        ),
        max(
            "array32-max",
            "array 32 claiming 4294967295 elements",
            &[0xdd, 0xff, 0xff, 0xff, 0xff],
        ),
        max(
            "map16-max",
            "map 16 claiming 65535 entries",
            &[0xde, 0xff, 0xff],
        ),
        max(
            "map32-max",
            "map 32 claiming 4294967295 entries",
            &[0xdf, 0xff, 0xff, 0xff, 0xff],
        ),
        max("str8-max", "str 8 claiming 255 bytes", &[0xd9, 0xff]),
        max(
            "str16-max",
            "str 16 claiming 65535 bytes",
            &[0xda, 0xff, 0xff],
        ),
        max(
            "str32-max",
            "str 32 claiming 4294967295 bytes",
            &[0xdb, 0xff, 0xff, 0xff, 0xff],
        ),
        max("bin8-max", "bin 8 claiming 255 bytes", &[0xc4, 0xff]),
        max(
            "bin16-max",
            "bin 16 claiming 65535 bytes",
            &[0xc5, 0xff, 0xff],
        ),
        max(
            "bin32-max",
            "bin 32 claiming 4294967295 bytes",
            &[0xc6, 0xff, 0xff, 0xff, 0xff],
        ),
        max("ext8-max", "ext 8 claiming 255 bytes", &[0xc7, 0xff, 0x01]),
        max(
            "ext16-max",
            "ext 16 claiming 65535 bytes",
            &[0xc8, 0xff, 0xff, 0x01],
        ),
        max(
            "ext32-max",
            "ext 32 claiming 4294967295 bytes",
            &[0xc9, 0xff, 0xff, 0xff, 0xff, 0x01],
        ),
        // One more than remains.
        max(
            "array16-remaining-plus-1",
            "array 16 claiming one element more than the bytes left",
            &[&[0xdc, 0x00, 0x05][..], &[0xc0; 4]].concat(),
        ),
        max(
            "map16-remaining-plus-1",
            "map 16 claiming one entry more than the bytes left",
            &[&[0xde, 0x00, 0x03][..], &[0xc0; 5]].concat(),
        ),
        max(
            "str16-remaining-plus-1",
            "str 16 claiming one byte more than is left",
            b"\xda\x00\x05abcd",
        ),
        max(
            "bin32-remaining-plus-1",
            "bin 32 claiming one byte more than is left",
            b"\xc6\x00\x00\x00\x05abcd",
        ),
        max(
            "ext8-remaining-plus-1",
            "ext 8 claiming one byte more than is left",
            b"\xc7\x05\x07abcd",
        ),
        // Nested claims: the shapes of msgpackr#200 and rmp#151.
        max(
            "nested-array16-claims",
            "200 nested array 16 headers each claiming 65535 elements",
            &repeat(&[0xdc, 0xff, 0xff], 200),
        ),
        max(
            "nested-array32-claims",
            "200 nested array 32 headers each claiming 4294967295 elements",
            &repeat(&[0xdd, 0xff, 0xff, 0xff, 0xff], 200),
        ),
        max(
            "nested-map32-claims",
            "200 nested map 32 headers each claiming 4294967295 entries",
            &repeat(&[0xdf, 0xff, 0xff, 0xff, 0xff], 200),
        ),
        max(
            "array-of-huge-strs",
            "an array of three str 32 headers each claiming 4294967295 bytes",
            &[&[0x93][..], &repeat(&[0xdb, 0xff, 0xff, 0xff, 0xff], 3)].concat(),
        ),
        max(
            "rmp-151-like",
            "an array of three array 32 headers each claiming 4294967295 elements",
            &[&[0x93][..], &repeat(&[0xdd, 0xff, 0xff, 0xff, 0xff], 3)].concat(),
        ),
    ]
}

fn amplification() -> Vec<Payload> {
    let fixarray_of_15_empties = [&[0x9f][..], &[0x90; 15]].concat();
    vec![
        Payload::new(
            "amp-1k-empty-arrays",
            "1000 empty arrays in an array 32: one byte each",
            [&[0xdd, 0, 0, 0x03, 0xe8][..], &[0x90; 1000]].concat(),
        ),
        Payload::new(
            "amp-1k-empty-maps",
            "500 entries of empty maps in a map 32: one byte each",
            [&[0xdf, 0, 0, 0x01, 0xf4][..], &[0x80; 1000]].concat(),
        ),
        Payload::new(
            "amp-1k-nils",
            "1000 nils in an array 16",
            [&[0xdc, 0x03, 0xe8][..], &[0xc0; 1000]].concat(),
        ),
        Payload::new(
            "amp-nested-empties",
            "15 arrays of 15 empty arrays",
            [&[0x9f][..], &repeat(&fixarray_of_15_empties, 15)].concat(),
        ),
    ]
}

fn malformed() -> Vec<Payload> {
    let bad = |id: &str, what: &str, bytes: &[u8]| {
        Payload::new(format!("bad-{id}"), what.to_string(), bytes.to_vec())
    };
    vec![
        bad("c1", "the reserved marker 0xc1", &[0xc1]),
        bad(
            "c1-in-array",
            "0xc1 inside an array",
            &[0x93, 0x01, 0xc1, 0x02],
        ),
        bad("c1-as-key", "0xc1 as a map key", &[0x81, 0xc1, 0xc0]),
        bad("utf8", "a str that is not UTF-8", &[0xa3, b'a', 0xff, b'b']),
        bad(
            "utf8-overlong",
            "an overlong UTF-8 sequence",
            &[0xa2, 0xc0, 0xaf],
        ),
        bad(
            "utf8-surrogate",
            "a UTF-8 surrogate",
            &[0xa3, 0xed, 0xa0, 0x80],
        ),
        bad("trailing", "a value and a byte after it", &[0x01, 0x02]),
        bad("empty", "no bytes at all", &[]),
    ]
}
