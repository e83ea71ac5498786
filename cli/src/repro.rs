//! Reproducing one payload: decode it under given limits (or run a fuzz target's harness on
//! it) and report the outcome and its cost. `hardpack repro` prints this; `audit` reads the
//! JSON of it from child processes.

use std::collections::BTreeMap;

use hardpack::{Decoder, ErrorKind, Limit, Limits, StreamDecoder};
use hardpack_harness::alloc_meter;
use hardpack_harness::targets::{Outcome, Target};
use serde::{Serialize, Serializer};

/// The decoding surface a payload goes through.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum Surface {
    /// `Decoder::decode`: the owned `Value`.
    #[default]
    Owned,
    /// `Decoder::decode_ref`: a `ValueRef` borrowing str, bin and ext payloads from the
    /// input.
    Borrowed,
    /// `Decoder::validate`: the decoder's verdict and charge, nothing built.
    Validate,
    /// `Decoder::strict` then `decode`: the owned `Value`, refusing non-canonical forms,
    /// non-str map keys and repeated keys.
    Strict,
    /// `Decoder::from_slice` into a built-in serde schema that accepts any document (an
    /// enum mirroring `Value`): the typed path, its depth limit and budget.
    Typed,
    /// `Decoder::strict` then `from_slice` into the same schema: the typed path in strict
    /// mode.
    TypedStrict,
    /// `Decoder::from_slice_derived` into a built-in type that derives `hardpack::Decode`
    /// (a recursive enum of every variant form, `hardpack_harness::targets::derived::Node`):
    /// the derive path, its depth limit and budget.
    Derived,
    /// `StreamDecoder`: the payload fed in pieces (`--feed N` bytes, default all at once)
    /// as values back to back, each taken as it completes.
    Stream,
}

/// How `--surface stream` feeds the payload.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StreamOptions {
    /// Bytes per feed (`None`: the whole payload at once).
    pub feed: Option<usize>,
    /// The stream's `max_buffer_bytes` (`None`: its default for the limits).
    pub max_buffer_bytes: Option<usize>,
}

impl Surface {
    /// The name the flag and the reports use.
    pub fn name(self) -> &'static str {
        match self {
            Surface::Owned => "owned",
            Surface::Borrowed => "borrowed",
            Surface::Validate => "validate",
            Surface::Strict => "strict",
            Surface::Typed => "typed",
            Surface::TypedStrict => "typed-strict",
            Surface::Derived => "derived",
            Surface::Stream => "stream",
        }
    }
}

/// What one decode (or one target run) of a payload did.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// The payload file (`-` for standard input).
    pub payload: String,
    /// The surface it went through (`owned`, `borrowed`, `validate`), or `target` with
    /// `--target`.
    pub surface: &'static str,
    /// Size of the payload.
    pub input_bytes: usize,
    /// The limits it was decoded under.
    pub limits: LimitsReport,
    /// Decoded or rejected, with details.
    pub outcome: OutcomeReport,
    /// Heap bytes live at peak during the decode (0 unless the counting allocator is installed).
    pub peak_heap_bytes: usize,
    /// Allocations made during the decode.
    pub allocations: usize,
    /// Wall-clock time of the decode, in microseconds.
    pub elapsed_us: f64,
    /// Deepest nesting the decode reached: the value's depth, or the depth of the error.
    pub depth_reached: usize,
    /// The most heap the surface may hold for this payload under the limits: `max_alloc_bytes`,
    /// and for the typed surfaces the typed decode's documented bound (twice the budget plus
    /// serde's reservations, `hardpack_check::fuzz::heap_bound`).
    pub heap_bound_bytes: usize,
    /// With `--target`: the target run, whose outcome and cost the fields above report.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<TargetReport>,
    /// With `--surface stream`: how it was fed and what the stream held.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream: Option<StreamReport>,
}

/// What a stream decode held and returned.
#[derive(Clone, Debug, Serialize)]
pub struct StreamReport {
    /// Bytes per feed.
    pub feed_bytes: usize,
    /// Values returned (before the error, if there was one).
    pub values: usize,
    /// Bytes of the stream those values took.
    pub bytes_consumed: usize,
    /// The most bytes held at once for a value that had not arrived whole.
    pub peak_buffered_bytes: usize,
    /// The stream's limit on that.
    pub max_buffer_bytes: LimitValue,
}

/// The limits, by field name; an unlimited one is `"unlimited"`.
#[derive(Clone, Debug, Serialize)]
pub struct LimitsReport(pub BTreeMap<&'static str, LimitValue>);

impl LimitsReport {
    /// Every limit of `limits`.
    pub fn of(limits: &Limits) -> Self {
        LimitsReport(
            Limit::ALL
                .iter()
                .map(|l| (l.name(), LimitValue(limits.get(*l))))
                .collect(),
        )
    }
}

/// A limit's value: a number, or `"unlimited"` for `usize::MAX`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LimitValue(pub usize);

impl Serialize for LimitValue {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            usize::MAX => s.serialize_str("unlimited"),
            n => s.serialize_u64(n as u64),
        }
    }
}

/// The result of the decode.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum OutcomeReport {
    /// The payload decoded.
    Decoded {
        /// Type of the top-level value.
        top_level_type: &'static str,
        /// Values in the tree, the root and map keys included.
        values: usize,
        /// Arrays and maps in the tree.
        containers: usize,
        /// Deepest nesting reached.
        max_depth: usize,
        /// Bytes the value took.
        bytes_consumed: usize,
    },
    /// The codec refused it.
    Rejected {
        /// Error kind name (`hardpack::Error::kind_name`).
        kind: &'static str,
        /// The limit that refused it, if one did.
        limit: Option<&'static str>,
        /// With a limit: its value.
        #[serde(skip_serializing_if = "Option::is_none")]
        max: Option<LimitValue>,
        /// With a limit: what the payload claimed.
        #[serde(skip_serializing_if = "Option::is_none")]
        claimed: Option<usize>,
        /// When the input ended early: at least this many more bytes are needed.
        #[serde(skip_serializing_if = "Option::is_none")]
        needed: Option<usize>,
        /// Byte offset of the item.
        offset: usize,
        /// Nesting depth there.
        depth: usize,
        /// The full message.
        message: String,
    },
    /// `--surface stream`: every value of the payload decoded, back to back.
    Streamed {
        /// Values returned.
        values: usize,
        /// Bytes they took (the whole payload).
        bytes_consumed: usize,
    },
    /// `validate` accepted the payload (nothing was built).
    Valid {
        /// Bytes the value took.
        bytes_consumed: usize,
        /// What the owned decode would charge to `max_alloc_bytes`.
        charged_bytes: usize,
    },
    /// A structured target ran (its input is no MessagePack), or its oracle failed first.
    Checked {
        /// What happened.
        detail: String,
    },
}

impl OutcomeReport {
    fn rejected(e: &hardpack::Error) -> Self {
        let (max, claimed) = match *e.kind() {
            ErrorKind::LimitExceeded { max, claimed, .. } => (Some(LimitValue(max)), Some(claimed)),
            _ => (None, None),
        };
        OutcomeReport::Rejected {
            kind: e.kind_name(),
            limit: e.limit().map(Limit::name),
            max,
            claimed,
            needed: e.needed(),
            offset: e.offset(),
            depth: e.depth(),
            message: e.to_string(),
        }
    }
}

/// A fuzz target's run on the payload.
#[derive(Clone, Debug, Serialize)]
pub struct TargetReport {
    /// The target.
    pub name: &'static str,
    /// True when its input describes a value to build rather than MessagePack to decode.
    pub structured: bool,
    /// `held` or `failed`.
    pub oracle: &'static str,
    /// The target's outcome (`decoded`, `rejected: KIND (LIMIT)`, `checked`), or the oracle's
    /// failure message.
    pub detail: String,
}

impl Report {
    /// A report of one run on `payload` (no target, no stream details).
    /// A report of a decode through `surface` (`None`: a fuzz target's run).
    fn new(
        name: &str,
        surface: Option<Surface>,
        payload: &[u8],
        limits: &Limits,
        outcome: OutcomeReport,
        cost: &alloc_meter::Cost,
        depth_reached: usize,
    ) -> Self {
        let heap_bound_bytes = match surface {
            Some(Surface::Typed | Surface::TypedStrict | Surface::Derived) => {
                hardpack_check::fuzz::heap_bound(limits, payload.len())
            }
            _ => limits
                .max_alloc_bytes
                .saturating_add(alloc_meter::ALLOC_SLACK_BYTES),
        };
        Report {
            payload: name.to_string(),
            surface: surface.map_or("target", Surface::name),
            input_bytes: payload.len(),
            limits: LimitsReport::of(limits),
            outcome,
            peak_heap_bytes: cost.peak_bytes,
            allocations: cost.allocations,
            elapsed_us: cost.elapsed.as_secs_f64() * 1e6,
            depth_reached,
            heap_bound_bytes,
            target: None,
            stream: None,
        }
    }

    /// True when the payload decoded (or, through `validate`, was found valid).
    pub fn decoded(&self) -> bool {
        matches!(
            self.outcome,
            OutcomeReport::Decoded { .. }
                | OutcomeReport::Valid { .. }
                | OutcomeReport::Streamed { .. }
        )
    }

    /// True when a target ran and its oracle failed.
    pub fn oracle_failed(&self) -> bool {
        self.target.as_ref().is_some_and(|t| t.oracle == "failed")
    }
}

/// Decodes `payload` under `limits` through `surface` (trailing bytes are an error) and
/// reports what happened.
pub fn repro(
    name: &str,
    payload: &[u8],
    limits: &Limits,
    surface: Surface,
    stream: StreamOptions,
) -> Report {
    let decoder = Decoder::new(limits.clone());
    // Only the decode is measured; describing its result afterwards allocates too, and the
    // result is dropped only after that.
    let (result, cost) = match surface {
        Surface::Validate => return validate(name, payload, limits),
        Surface::Stream => return streamed(name, payload, limits, stream),
        Surface::Owned | Surface::Strict => {
            let decoder = if surface == Surface::Strict {
                decoder.strict()
            } else {
                decoder
            };
            let (result, cost) = alloc_meter::measure(|| decoder.decode(payload));
            let described = result.map(|value| (value.type_name(), value.shape()));
            (described, cost)
        }
        Surface::Typed | Surface::TypedStrict => {
            let decoder = if surface == Surface::TypedStrict {
                decoder.strict()
            } else {
                decoder
            };
            let (result, cost) = alloc_meter::measure(|| {
                decoder.from_slice::<hardpack_harness::schema::Any>(payload)
            });
            let described = result.map(|any| {
                let value = any.to_value();
                (value.type_name(), value.shape())
            });
            (described, cost)
        }
        Surface::Derived => {
            use hardpack_harness::targets::derived::Node;
            let (result, cost) =
                alloc_meter::measure(|| decoder.from_slice_derived::<Node>(payload));
            // Described as the value its encoding decodes to (outside the measured decode).
            let described = result.and_then(|node| {
                let bytes = hardpack::derive::to_vec(&node)
                    .expect("a decoded value encodes: its lengths came from its input");
                let value = hardpack::decode(&bytes)?;
                Ok((value.type_name(), value.shape()))
            });
            (described, cost)
        }
        Surface::Borrowed => {
            let (result, cost) = alloc_meter::measure(|| decoder.decode_ref(payload));
            let described = result.map(|doc| (doc.root().type_name(), doc.shape()));
            (described, cost)
        }
    };
    let (outcome, depth_reached) = match &result {
        Ok((type_name, shape)) => {
            let outcome = OutcomeReport::Decoded {
                top_level_type: type_name,
                values: shape.values,
                containers: shape.containers,
                max_depth: shape.max_depth,
                bytes_consumed: payload.len(),
            };
            (outcome, shape.max_depth)
        }
        Err(e) => (OutcomeReport::rejected(e), e.depth()),
    };
    Report::new(
        name,
        Some(surface),
        payload,
        limits,
        outcome,
        &cost,
        depth_reached,
    )
}

/// Validates `payload` under `limits` (`Decoder::validate`): the decoder's verdict and what it
/// would charge, with nothing built; the heap it took is the validator's own (none up to
/// `max_depth` 128).
fn validate(name: &str, payload: &[u8], limits: &Limits) -> Report {
    let decoder = Decoder::new(limits.clone());
    let (result, cost) = alloc_meter::measure(|| decoder.validate(payload));
    let (outcome, depth_reached) = match &result {
        Ok(stats) => (
            OutcomeReport::Valid {
                bytes_consumed: stats.consumed,
                charged_bytes: stats.charged_bytes,
            },
            0,
        ),
        Err(e) => (OutcomeReport::rejected(e), e.depth()),
    };
    Report::new(
        name,
        Some(Surface::Validate),
        payload,
        limits,
        outcome,
        &cost,
        depth_reached,
    )
}

/// Feeds `payload` to a `StreamDecoder` in pieces, taking (and dropping) each value as it
/// completes; reports the values, the error, the heap and the bytes held.
fn streamed(name: &str, payload: &[u8], limits: &Limits, options: StreamOptions) -> Report {
    // Without --feed, the whole payload in one piece (an empty one in none).
    let feed_bytes = options.feed.unwrap_or(payload.len());
    let feed = feed_bytes.max(1);
    let mut stream = StreamDecoder::new(Decoder::new(limits.clone()));
    if let Some(max) = options.max_buffer_bytes {
        stream = stream.with_max_buffer_bytes(max);
    }
    let mut values = 0usize;
    let mut deepest = 0usize;
    let (result, cost) = alloc_meter::measure(|| {
        let mut take = |stream: &mut StreamDecoder| -> Result<(), hardpack::Error> {
            while let Some(value) = stream.next()? {
                values += 1;
                deepest = deepest.max(value.shape().max_depth);
            }
            Ok(())
        };
        for piece in payload.chunks(feed) {
            stream.feed(piece);
            take(&mut stream)?;
        }
        stream.finish()?;
        take(&mut stream)
    });
    let (outcome, depth_reached) = match &result {
        Ok(()) => (
            OutcomeReport::Streamed {
                values,
                bytes_consumed: stream.consumed(),
            },
            deepest,
        ),
        Err(e) => (OutcomeReport::rejected(e), e.depth().max(deepest)),
    };
    let mut report = Report::new(
        name,
        Some(Surface::Stream),
        payload,
        limits,
        outcome,
        &cost,
        depth_reached,
    );
    report.stream = Some(StreamReport {
        feed_bytes,
        values,
        bytes_consumed: stream.consumed(),
        peak_buffered_bytes: stream.peak_buffered_bytes(),
        max_buffer_bytes: LimitValue(stream.max_buffer_bytes()),
    });
    report
}

/// What a `StreamDecoder` that failed on `payload` does with `valid` fed next: the answer of
/// the stream reuse mode (`adapters/README.md`) and what happened, in words.
pub fn stream_reuse(
    payload: &[u8],
    valid: &[u8],
    limits: &Limits,
    options: StreamOptions,
) -> (&'static str, String) {
    let decoder = Decoder::new(limits.clone());
    let expected = match decoder.decode(valid) {
        Ok(value) => value,
        Err(e) => {
            return (
                "unanswered",
                format!("the valid document does not decode alone: {e}"),
            )
        }
    };
    let mut stream = StreamDecoder::new(decoder);
    if let Some(max) = options.max_buffer_bytes {
        stream = stream.with_max_buffer_bytes(max);
    }
    let feed = options.feed.unwrap_or(payload.len()).max(1);
    let mut failure = None;
    'feeding: for piece in payload.chunks(feed) {
        stream.feed(piece);
        loop {
            match stream.next() {
                Ok(Some(_)) => {}
                Ok(None) => break,
                Err(e) => {
                    failure = Some(e);
                    break 'feeding;
                }
            }
        }
    }
    let Some(failure) = failure else {
        return (
            "no-error",
            "the payload raised no error (values, or a value not yet complete)".into(),
        );
    };
    stream.feed(valid);
    match stream.next() {
        Err(e) => (
            "refused-again",
            format!("after {failure}, the valid document: {e}"),
        ),
        Ok(Some(value)) if value == expected => (
            "recovered",
            format!("after {failure}, the valid document came back"),
        ),
        Ok(Some(_)) => (
            "desynchronised",
            format!("after {failure}, a different value came back"),
        ),
        Ok(None) => (
            "desynchronised",
            format!("after {failure}, the valid document did not come back"),
        ),
    }
}

/// Runs `target`'s harness on `payload`, oracle included, and reports what the target did:
/// the outcome it returned under the limits it chose (for `decode_limits`, from the input's
/// first bytes), and the heap and time of the whole run.
pub fn repro_target(name: &str, payload: &[u8], target: &'static Target) -> Report {
    let limits = (target.limits)(payload);
    let previous_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let (result, cost) =
        alloc_meter::measure(|| std::panic::catch_unwind(|| (target.run)(payload)));
    std::panic::set_hook(previous_hook);
    let (outcome, depth_reached, oracle, detail) = match result {
        Ok(outcome) => {
            let detail = outcome.to_string();
            let (report, depth) = OutcomeReport::of_target(outcome);
            (report, depth, "held", detail)
        }
        Err(panic) => {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "the harness panicked".to_string());
            let outcome = OutcomeReport::Checked {
                detail: "the oracle failed before the target returned".to_string(),
            };
            (outcome, 0, "failed", message)
        }
    };
    let mut report = Report::new(
        name,
        None,
        payload,
        &limits.unwrap_or_else(Limits::unlimited),
        outcome,
        &cost,
        depth_reached,
    );
    report.target = Some(TargetReport {
        name: target.name,
        structured: target.is_structured(),
        oracle,
        detail,
    });
    report
}

impl OutcomeReport {
    /// A target's outcome as a report, with the depth it reached.
    fn of_target(outcome: Outcome) -> (Self, usize) {
        match outcome {
            Outcome::Decoded {
                type_name,
                shape,
                consumed,
            } => (
                OutcomeReport::Decoded {
                    top_level_type: type_name,
                    values: shape.values,
                    containers: shape.containers,
                    max_depth: shape.max_depth,
                    bytes_consumed: consumed,
                },
                shape.max_depth,
            ),
            Outcome::Rejected(e) => (OutcomeReport::rejected(&e), e.depth()),
            other => (
                OutcomeReport::Checked {
                    detail: other.to_string(),
                },
                0,
            ),
        }
    }
}
