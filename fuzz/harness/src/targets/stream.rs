//! `stream_split`: the stream decoder fed in pieces gives `decode_prefix`'s values and error.

use hardpack::{Decoder, ErrorKind, Value};

use crate::alloc_meter;

use super::*;

/// Slice decoding, value after value: the values and the first error, with the offset where
/// the value it is in starts. The reference the stream decoder must equal.
pub fn values_back_to_back(
    decoder: &Decoder,
    input: &[u8],
) -> (Vec<Value>, Option<(hardpack::Error, usize)>) {
    let mut values = Vec::new();
    let mut at = 0;
    while let Some(rest) = input.get(at..).filter(|rest| !rest.is_empty()) {
        match decoder.decode_prefix(rest) {
            Ok((value, len)) => {
                values.push(value);
                at += len;
            }
            Err(e) => return (values, Some((e, at))),
        }
    }
    (values, None)
}

/// The piece lengths a `stream_split` input's split byte asks for, cycled.
pub(super) fn split_pieces(split: u8) -> [usize; 3] {
    match split {
        0 => [1, 1, 1],
        s => [usize::from(s), 1, usize::from(s) * 7 % 64 + 1],
    }
}

/// `payload` fed to `stream` in `pieces` (cycled), each value handed to `take` as it
/// completes, and `waiting` told how many bytes were fed each time the stream waits for more;
/// then finished. The error, if any, as (kind, offset, depth).
pub(super) fn feed_in_pieces(
    stream: &mut hardpack::StreamDecoder,
    payload: &[u8],
    pieces: [usize; 3],
    mut take: impl FnMut(Value),
    mut waiting: impl FnMut(&hardpack::StreamDecoder, usize),
) -> Option<(ErrorKind, usize, usize)> {
    let verdict = |e: hardpack::Error| Some((e.kind().clone(), e.offset(), e.depth()));
    let mut at = 0;
    for len in pieces.iter().copied().cycle() {
        let Some(piece) = payload.get(at..).filter(|rest| !rest.is_empty()) else {
            break;
        };
        let piece = piece.get(..len).unwrap_or(piece);
        at += piece.len();
        stream.feed(piece);
        loop {
            match stream.next() {
                Ok(Some(value)) => take(value),
                Ok(None) => {
                    waiting(stream, at);
                    break;
                }
                Err(e) => return verdict(e),
            }
        }
    }
    if let Err(e) = stream.finish() {
        return verdict(e);
    }
    loop {
        match stream.next() {
            Ok(Some(value)) => take(value),
            Ok(None) => return None,
            Err(e) => return verdict(e),
        }
    }
}

/// A stream that waits for more of a value holds a value that can still fit: the bytes held
/// (`fed` after what the stream returned) are an incomplete value whose headers, read by
/// `skip`, need no more than `max_buffer` bytes in all. A value whose header shows it cannot
/// fit must be refused when that header arrives, before the body is held.
fn waits_only_for_what_fits(
    decoder: &Decoder,
    stream: &hardpack::StreamDecoder,
    fed: &[u8],
    max_buffer: usize,
) {
    let held = fed.get(stream.consumed()..).unwrap_or_default();
    assert_eq!(
        stream.held_bytes(),
        held.len(),
        "the stream holds other bytes than those fed after its values"
    );
    match decoder.skip(held) {
        Err(e) => match e.kind() {
            ErrorKind::UnexpectedEnd { needed } => assert!(
                held.len().saturating_add(*needed) <= max_buffer,
                "the stream waits, holding {} bytes of a value whose headers need {needed} \
                 more: over max_buffer_bytes {max_buffer}, it should have refused it when the \
                 header at byte {} arrived",
                held.len(),
                e.offset()
            ),
            _ => panic!("the stream waits on bytes the decoder refuses: {e}"),
        },
        Ok(_) => panic!("the stream waits though the value it holds is complete"),
    }
}

/// The input split into pieces and fed to a stream decoder gives what slice decoding gives.
pub fn stream_split(data: &[u8]) -> Outcome {
    let (limits, rest) = limits_from_input(data);
    let (split, payload) = match rest.split_first() {
        Some((split, payload)) => (*split, payload),
        None => (0, rest),
    };
    let pieces = split_pieces(split);
    let decoder = Decoder::new(limits.clone());
    let (expected, first_error) = values_back_to_back(&decoder, payload);
    let expected_error = first_error
        .as_ref()
        .map(|(e, start)| (e.kind().clone(), start + e.offset(), e.depth()));

    let mut stream =
        hardpack::StreamDecoder::new(decoder.clone()).with_max_buffer_bytes(usize::MAX);
    let mut values = Vec::new();
    let error = feed_in_pieces(&mut stream, payload, pieces, |v| values.push(v), |_, _| {});
    assert!(
        values == expected,
        "fed in pieces {pieces:?}, the stream gave {} values where slice decoding gives {}",
        values.len(),
        expected.len()
    );
    assert!(
        error == expected_error,
        "fed in pieces {pieces:?}, the stream ended with {error:?}, slice decoding with {expected_error:?}"
    );

    // With little room to hold a value: a prefix of the values, then the same error or a
    // refusal by the buffer limit, holding and allocating within the bounds.
    let max_buffer = 16 + usize::from(split) * 8;
    let mut small = hardpack::StreamDecoder::new(decoder.clone()).with_max_buffer_bytes(max_buffer);
    let mut taken = 0;
    let (error, cost) = alloc_meter::measure(|| {
        feed_in_pieces(
            &mut small,
            payload,
            pieces,
            |v| {
                assert!(
                    expected.get(taken) == Some(&v),
                    "with max_buffer_bytes {max_buffer}, value {taken} differs from slice decoding's"
                );
                taken += 1;
            },
            |stream, fed| waits_only_for_what_fits(&decoder, stream, &payload[..fed], max_buffer),
        )
    });
    match &error {
        Some((ErrorKind::BufferLimit { max, needed }, _, _)) => {
            assert!(*max == max_buffer && needed > max, "a buffer limit refusal that is not one: {error:?}");
        }
        _ => assert!(
            taken == expected.len() && error == expected_error,
            "with max_buffer_bytes {max_buffer}: {taken} values and {error:?}, slice decoding {} and {expected_error:?}",
            expected.len()
        ),
    }
    assert!(
        small.peak_buffered_bytes() <= max_buffer,
        "held {} bytes for a value, max_buffer_bytes is {max_buffer}",
        small.peak_buffered_bytes()
    );
    let piece = pieces.iter().copied().max().unwrap_or(1);
    // The buffer holds at most max_buffer_bytes of a value plus the piece just fed, in a
    // vector that may have doubled; the framer's counts take a word per open level, in a
    // vector that may have doubled, and the levels are at most max_depth and the bytes held.
    let held = max_buffer.saturating_add(piece);
    let levels = limits.max_depth.min(held);
    let bound = limits
        .max_alloc_bytes
        .saturating_add(held.saturating_mul(2))
        .saturating_add(levels.saturating_mul(16))
        .saturating_add(4096);
    assert!(
        cost.peak_bytes <= bound,
        "the stream's peak heap {} exceeds max_alloc_bytes + 2 x (buffer + piece) + 16 x levels + 4 KiB = {bound}",
        cost.peak_bytes
    );

    // Typed values through the same stream: schema::Any mirrors Value, so each equals the
    // slice decode's; the stream ends with the same kind of error (the typed path charges
    // its own allocations, so budget refusals may differ, as in serde_typed).
    let mut typed = hardpack::StreamDecoder::new(Decoder::new(limits.clone()))
        .with_max_buffer_bytes(usize::MAX);
    let mut typed_values = 0usize;
    let mut typed_error = None;
    let mut at = 0;
    'feeding: for len in pieces.iter().copied().cycle() {
        let piece = payload.get(at..).unwrap_or_default();
        let piece = piece.get(..len).unwrap_or(piece);
        at += piece.len();
        if piece.is_empty() {
            if let Err(e) = typed.finish() {
                typed_error = Some(e);
                break;
            }
        } else {
            typed.feed(piece);
        }
        loop {
            match typed.next_as::<crate::schema::Any>() {
                Ok(Some(any)) => {
                    let slice_refused_by_budget = typed_values == expected.len()
                        && first_error.as_ref().is_some_and(|(e, _)| budget_error(e));
                    if slice_refused_by_budget {
                        // The owned decode ran out of budget where the typed one did not:
                        // the streams part ways here, as the surfaces do.
                        break 'feeding;
                    }
                    assert!(
                        expected.get(typed_values) == Some(&any.to_value()),
                        "typed stream value {typed_values} differs from slice decoding's"
                    );
                    typed_values += 1;
                }
                Ok(None) if piece.is_empty() => break 'feeding,
                Ok(None) => break,
                Err(e) => {
                    typed_error = Some(e);
                    break 'feeding;
                }
            }
        }
    }
    match (&typed_error, &first_error) {
        (Some(a), _) if budget_error(a) => {}
        (_, Some((b, _))) if budget_error(b) => {}
        (Some(a), Some((b, _))) => assert!(
            a.kind_name() == b.kind_name(),
            "the typed stream ended with {a}, slice decoding with {b}"
        ),
        (None, None) => assert!(
            typed_values == expected.len(),
            "the typed stream lost values"
        ),
        (a, b) => panic!("the typed stream ended with {a:?}, slice decoding with {b:?}"),
    }

    match (first_error, expected.first()) {
        // The error as decode_prefix gives it: its offset counts from its value's start.
        (Some((e, _)), _) => Outcome::Rejected(e),
        (None, Some(first)) => decoded(first, payload.len()),
        (None, None) => Outcome::NoValue,
    }
}
