//! Every decoding surface gives the owned decoder's verdict on the same input: the same bytes
//! consumed and the same value (compared by its canonical encoding), or the same error kind,
//! offset and depth. One table of surfaces, run over the attacks and over random documents,
//! under several limits, lenient and strict.
//!
//! Where a surface may differ, and why: each surface charges what it allocates itself, so a
//! `max_alloc_bytes` refusal (or the allocator's) is a verdict of its own; `validate` must
//! still charge exactly what the owned decode charges.

use hardpack::{decode::Token, decode::TokenReader, Decoder, Error, ErrorKind, Limit, Limits};
use proptest::prelude::*;

mod common;
use common::{attacks, documents};

/// What a surface made of the value at the start of the input.
#[derive(Debug, PartialEq)]
struct Read {
    consumed: usize,
    /// The value's canonical encoding, for the surfaces that hand out a value or tokens.
    encoding: Option<Vec<u8>>,
    /// What the decode charged to `max_alloc_bytes`, for the surfaces that must charge as the
    /// owned decode does.
    charged: Option<usize>,
}

struct Surface {
    name: &'static str,
    read: fn(&Decoder, &[u8]) -> Result<Read, Error>,
}

const SURFACES: &[Surface] = &[
    Surface {
        name: "borrowed (decode_ref)",
        read: |decoder, input| {
            let (doc, stats) = decoder.decode_ref_with_stats(input)?;
            Ok(Read {
                consumed: stats.consumed,
                encoding: Some(doc.encode()),
                charged: None,
            })
        },
    },
    Surface {
        name: "validate (skip)",
        read: |decoder, input| {
            let stats = decoder.skip(input)?;
            Ok(Read {
                consumed: stats.consumed,
                encoding: None,
                charged: Some(stats.charged_bytes),
            })
        },
    },
    Surface {
        name: "tokens (TokenReader)",
        read: |decoder, input| {
            // The token reader has no strict mode of its own: strict reads go through the
            // other surfaces.
            let mut reader = TokenReader::new(input, decoder.limits());
            let mut encoding = Vec::new();
            loop {
                match reader.next_token()? {
                    Some((_, token)) => Token::encode_into(&token, &mut encoding),
                    None => return Err(hardpack::decode_prefix(input).unwrap_err()),
                }
                if reader.depth() == 0 {
                    return Ok(Read {
                        consumed: reader.position(),
                        encoding: Some(encoding),
                        charged: None,
                    });
                }
            }
        },
    },
    Surface {
        name: "typed (from_slice_prefix::<Value>)",
        read: |decoder, input| {
            let (value, consumed) = decoder.from_slice_prefix::<hardpack::Value>(input)?;
            Ok(Read {
                consumed,
                encoding: Some(hardpack::encode(&value).unwrap()),
                charged: None,
            })
        },
    },
    Surface {
        name: "stream (StreamDecoder, fed whole)",
        read: |decoder, input| {
            let mut stream =
                hardpack::StreamDecoder::new(decoder.clone()).with_max_buffer_bytes(usize::MAX);
            stream.feed(input);
            stream.finish()?;
            match stream.next()? {
                Some(value) => Ok(Read {
                    consumed: stream.consumed(),
                    encoding: Some(hardpack::encode(&value).unwrap()),
                    charged: None,
                }),
                // Only an empty input ends before its first value.
                None => Err(hardpack::decode_prefix(input).unwrap_err()),
            }
        },
    },
];

/// The deepest `max_depth` the typed surface runs under here: a test thread's 2 MiB holds it
/// in a debug build (see `hardpack::de` for the stack a level takes).
const TYPED_MAX_DEPTH: usize = 200;

/// The owned decode's verdict: the reference every surface is held to.
fn owned(decoder: &Decoder, input: &[u8]) -> Result<Read, Error> {
    let (value, stats) = decoder.decode_with_stats(input)?;
    Ok(Read {
        consumed: stats.consumed,
        encoding: Some(hardpack::encode(&value).unwrap()),
        charged: Some(stats.charged_bytes),
    })
}

/// A refusal by the budget or the allocator: each surface's own.
fn budget_error(e: &Error) -> bool {
    e.limit() == Some(Limit::AllocBytes) || matches!(e.kind(), ErrorKind::OutOfMemory { .. })
}

/// Every surface agrees with the owned decode on `input` under `decoder`.
fn every_surface_agrees(decoder: &Decoder, input: &[u8]) {
    let expected = owned(decoder, input);
    for surface in SURFACES {
        if decoder.is_strict() && surface.name.starts_with("tokens") {
            continue;
        }
        // serde recurses natively once per level: the typed surface is safe only under a
        // max_depth that bounds it (documented in `hardpack::de`), not under unlimited limits.
        if surface.name.starts_with("typed") && decoder.limits().max_depth > TYPED_MAX_DEPTH {
            continue;
        }
        let got = (surface.read)(decoder, input);
        let what = || {
            format!(
                "{} on {:02x?}{} (strict: {})",
                surface.name,
                &input[..input.len().min(24)],
                if input.len() > 24 { "..." } else { "" },
                decoder.is_strict()
            )
        };
        match (&expected, &got) {
            (Ok(expected), Ok(got)) => {
                assert_eq!(got.consumed, expected.consumed, "{}", what());
                if let Some(encoding) = &got.encoding {
                    assert_eq!(Some(encoding), expected.encoding.as_ref(), "{}", what());
                }
                if got.charged.is_some() {
                    assert_eq!(got.charged, expected.charged, "{}", what());
                }
            }
            (Err(a), Err(b)) if budget_error(a) || budget_error(b) => {}
            (Err(a), Err(b)) => assert_eq!(a, b, "{}", what()),
            (Err(e), Ok(_)) | (Ok(_), Err(e)) => assert!(
                budget_error(e),
                "{}: one side refused with {e}, the other accepted",
                what()
            ),
        }
    }
}

fn decoders() -> Vec<Decoder> {
    let limits = [
        Limits::default(),
        Limits::unlimited(),
        Limits::default().with(Limit::AllocBytes, 1000),
        Limits::default().with(Limit::Depth, 200),
        Limits::default()
            .with(Limit::ArrayLen, 3)
            .with(Limit::MapLen, 2)
            .with(Limit::StrLen, 4),
    ];
    limits
        .into_iter()
        .flat_map(|l| [Decoder::new(l.clone()), Decoder::new(l).strict()])
        .collect()
}

#[test]
fn every_surface_gives_the_owned_verdict_on_the_attacks() {
    let decoders = decoders();
    for attack in attacks() {
        for decoder in &decoders {
            every_surface_agrees(decoder, &attack);
        }
    }
}

#[test]
fn the_table_holds_every_surface() {
    // A surface added to the crate is added here: the names say which are covered.
    let names: Vec<_> = SURFACES
        .iter()
        .map(|s| s.name.split(' ').next().unwrap())
        .collect();
    assert_eq!(names, ["borrowed", "validate", "tokens", "typed", "stream"]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn every_surface_gives_the_owned_verdict_on_any_document(input in documents()) {
        for decoder in decoders() {
            every_surface_agrees(&decoder, &input);
        }
    }

    #[test]
    fn every_surface_gives_the_owned_verdict_on_any_bytes(input in proptest::collection::vec(any::<u8>(), 0..64)) {
        for decoder in decoders() {
            every_surface_agrees(&decoder, &input);
        }
    }
}
