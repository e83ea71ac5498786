//! The guarded check: every payload decoded in a child process (the same test binary run
//! again), on a thread with a given stack, under a heap ceiling and a time limit, so that a
//! stack overflow, an abort or a hang is that payload's result and the run goes on.
//!
//! How the child is found: the check's test runs again in a child process with
//! `HARDPACK_CHECK_CHILD=<check>:<sweep step>:<first payload>:<end>` set. The parent traces
//! the type, generates the payloads, and writes each child its share through its standard
//! input; a child never traces or generates anything. A check in such a process does not
//! spawn: the one it names reads its payloads, decodes them in order, says on its standard
//! output when it starts each and how each ended, and ends the process; the checks before it
//! in the same test return at once. When the decoding dies, the payload it had started is
//! blamed and decoding goes on after it: on Linux the child decodes in a forked worker, says
//! `died` when one dies and forks the next (`fork.rs`), so a death costs a fork; elsewhere the
//! next child starts after it, and a death costs a process start. From a `#[test]`, the
//! child runs that test alone (libtest names the test's thread after the test); from a
//! `main`, the program runs again with its own arguments.

use std::cell::Cell;
use std::collections::BTreeSet;
use std::fmt::Display;
use std::io::{BufRead, BufReader, Read};
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use hardpack::{Limit, Limits};
use serde::de::Deserialize;

use crate::alloc;
use crate::ledger::{Ledger, Passage};
use crate::payload::Payload;
use crate::report::{Outcome, Report, Row};
use crate::typed::{generate, Generated};

/// The environment variable that makes a process a check's child.
const CHILD_ENV: &str = "HARDPACK_CHECK_CHILD";
/// In a child that traces the type first, the ordinal of the check whose type it traces.
const TRACE_CHILD_ENV: &str = "HARDPACK_CHECK_TRACE_CHILD";
/// Set in a trace child that traces without filling nils (see [`crate::shape::filling_nils`]).
const TRACE_PLAIN_ENV: &str = "HARDPACK_CHECK_TRACE_PLAIN";
/// What the child's standard error says after each death a fork survived (see `fork.rs`):
/// what came before it is that death's.
pub(crate) const DEATH_MARK: &str = "hardpack-check\tdied";
/// What a child's result lines start with (the rest of its standard output is libtest's).
const LINE_PREFIX: &str = "hardpack-check\t";

thread_local! {
    /// How many checks this thread has run: the child finds its check by this ordinal.
    static CHECKS_RUN: Cell<usize> = const { Cell::new(0) };
}

/// What a decode under check gives back when it accepts.
struct Decoded {
    /// hardpack's: what the decode charged to `max_alloc_bytes`.
    charged: Option<usize>,
    /// What to check of the value once the decode's cost is measured (the round trip).
    then: Option<Box<dyn FnOnce()>>,
}

/// One decode's verdict for its result line: `accepted`, `refused` or `panicked`, what it
/// charged, its message, and the byte a refusal names.
type Verdict = (&'static str, Option<usize>, String, Option<usize>);

/// What a decode under check gives back when it refuses.
struct Refusal {
    message: String,
    /// hardpack's: the byte its error names.
    offset: Option<usize>,
}

/// A decoder under check: any function from bytes to a result. The bytes live as long as
/// the child process, so a type may borrow from them.
type DecodeFn<'a> = Box<dyn Fn(&'static [u8]) -> Result<Decoded, Refusal> + Sync + 'a>;

/// Which payloads a check runs.
enum Source {
    /// The generic payloads and those shaped by the type.
    Generated,
    /// The files of a directory (or one file): reported payloads.
    Files(PathBuf),
}

/// A check of a type's decoding against hostile payloads: see [`check`].
pub struct Check<'a, T> {
    decoder: UnderCheck<'a>,
    settings: Settings,
    /// With hardpack's decoder: the round trip each accepted value must pass.
    round_trip: Option<fn(&T)>,
    of: PhantomData<fn() -> T>,
}

/// The decoder a check runs.
struct UnderCheck<'a> {
    name: String,
    decode: DecodeFn<'a>,
    /// The limits, when the decoder is hardpack's (they set the documented heap bound).
    limits: Option<Limits>,
}

/// What a check runs and how, whatever the decoder.
struct Settings {
    type_name: &'static str,
    /// With hardpack's decoder: a limit and the values to run every payload under.
    sweep: Option<(Limit, Vec<usize>)>,
    source: Source,
    /// Valid documents to mutate node by node, by name.
    samples: Vec<(String, Vec<u8>)>,
    /// Where samples could not be read.
    sample_errors: Vec<String>,
    stack_bytes: usize,
    heap_ceiling: usize,
    time_limit: Duration,
    jobs: usize,
    amplification: Amplification,
}

/// The most heap a decode may hold per input byte, above a floor, before it counts as broken
/// whatever the decoder: see [`Check::amplification_limit`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Amplification {
    /// Bytes held per input byte.
    pub per_input_byte: usize,
    /// Bytes any decode may hold.
    pub floor: usize,
}

impl Amplification {
    /// The most a decode of `input_bytes` may hold.
    pub fn bound(&self, input_bytes: usize) -> usize {
        self.floor
            .saturating_add(self.per_input_byte.saturating_mul(input_bytes))
    }
}

/// The default amplification limit: 16 MiB, plus 1 KiB per input byte. A decode that
/// legitimately builds 1 KiB of structs from one byte of input is rare (a `Vec` of large
/// `Option`s, each `nil`); a decoder that buffers or preallocates from a claim goes far past
/// it (200 MiB from a 603-byte document).
pub const DEFAULT_AMPLIFICATION: Amplification = Amplification {
    per_input_byte: 1024,
    floor: 16 << 20,
};

/// The fewest bytes of stack one level of a recursive decode takes: a call's return address
/// and saved frame pointer.
const MIN_FRAME_BYTES: usize = 16;

/// The default stack of a decoding thread: tokio's worker threads get 2 MiB.
pub const DEFAULT_STACK_BYTES: usize = 2 << 20;
/// The default heap ceiling of a decode: a payload whose decode holds more at once fails.
pub const DEFAULT_HEAP_CEILING: usize = 1 << 30;
/// The default time limit of one payload's decode.
pub const DEFAULT_TIME_LIMIT: Duration = Duration::from_secs(10);

/// The child processes a check runs at once by default: one a core, at most 8.
fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(8))
}

/// A check of `T` decoded by hardpack under `Limits::default()`, against the generic payloads
/// and those shaped by `T`. Change the decoder with [`Check::limits`] or [`Check::decoder`],
/// the payloads with [`Check::payloads`], then [`Check::run`] it or
/// [`Check::assert_hardened`].
///
/// The test binary must use [`CountingAlloc`](crate::CountingAlloc) as its global
/// allocator: peak heap is what the check measures, and without it the check fails rather
/// than report 0 bytes.
pub fn check<T: Deserialize<'static> + 'static>() -> Check<'static, T> {
    let limits = Limits::default();
    Check {
        decoder: UnderCheck {
            name: "hardpack (default Limits)".into(),
            decode: hardpack_decoder::<T>(limits.clone(), None),
            limits: Some(limits),
        },
        settings: Settings {
            type_name: std::any::type_name::<T>(),
            sweep: None,
            source: Source::Generated,
            samples: Vec::new(),
            sample_errors: Vec::new(),
            stack_bytes: DEFAULT_STACK_BYTES,
            heap_ceiling: DEFAULT_HEAP_CEILING,
            time_limit: DEFAULT_TIME_LIMIT,
            jobs: default_jobs(),
            amplification: DEFAULT_AMPLIFICATION,
        },
        round_trip: None,
        of: PhantomData,
    }
}

fn hardpack_decoder<'a, T: Deserialize<'static> + 'static>(
    limits: Limits,
    round_trip: Option<fn(&T)>,
) -> DecodeFn<'a> {
    let decoder = hardpack::Decoder::new(limits);
    let refusal = |e: hardpack::Error| Refusal {
        message: e.to_string(),
        offset: Some(e.offset()),
    };
    Box::new(move |bytes| {
        match decoder.from_slice_with_stats::<T>(bytes) {
            Ok((value, stats)) if stats.consumed == bytes.len() => Ok(Decoded {
                charged: Some(stats.charged_bytes),
                then: round_trip.map(|check| Box::new(move || check(&value)) as Box<dyn FnOnce()>),
            }),
            // Bytes after the value: from_slice's own refusal says so, in its words.
            Ok(_) => decoder
                .from_slice::<T>(bytes)
                .map(|_| Decoded {
                    charged: None,
                    then: None,
                })
                .map_err(refusal),
            Err(e) => Err(refusal(e)),
        }
    })
}

impl<'a, T: Deserialize<'static> + 'static> Check<'a, T> {
    /// Decodes with hardpack under these limits.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.decoder.name = "hardpack".into();
        self.decoder.decode = hardpack_decoder::<T>(limits.clone(), self.round_trip);
        self.decoder.limits = Some(limits);
        self
    }

    /// Runs every payload once per value of `limit` (with hardpack's decoder, the other
    /// limits as set): the report then shows, per payload, the smallest value that lets it
    /// decode, and each run is held to the heap bound of its own limits. A sweep of
    /// `max_alloc_bytes` shows what the type needs; of `max_depth`, how deep its documents go.
    /// With another decoder the check fails: only hardpack's takes limits.
    pub fn sweep(mut self, limit: Limit, values: impl IntoIterator<Item = usize>) -> Self {
        self.settings.sweep = Some((limit, values.into_iter().collect()));
        self
    }

    /// Decodes with any function: rmp-serde, a hand-written decoder, a service's own entry
    /// point. Its error is the refusal's message. For a type that borrows from its input, see
    /// [`Check::decoder_borrowing`].
    pub fn decoder<'b, R, E: Display>(
        self,
        name: &str,
        decode: impl Fn(&[u8]) -> Result<R, E> + Sync + 'b,
    ) -> Check<'b, T> {
        self.decoder_borrowing(name, move |bytes: &'static [u8]| decode(bytes))
    }

    /// [`Check::decoder`] for a type that borrows from its input (`&'a str` fields,
    /// `#[serde(borrow)]`): the bytes are `'static` (they live as long as the child process
    /// that decodes them), so the result may borrow from them:
    /// `.decoder_borrowing("rmp-serde", rmp_serde::from_slice::<Message<'_>>)`.
    pub fn decoder_borrowing<'b, R, E: Display>(
        self,
        name: &str,
        decode: impl Fn(&'static [u8]) -> Result<R, E> + Sync + 'b,
    ) -> Check<'b, T> {
        Check {
            decoder: UnderCheck {
                name: name.to_string(),
                decode: Box::new(move |bytes| {
                    decode(bytes)
                        .map(|_| Decoded {
                            charged: None,
                            then: None,
                        })
                        .map_err(|e| Refusal {
                            message: e.to_string(),
                            offset: None,
                        })
                }),
                limits: None,
            },
            settings: self.settings,
            round_trip: self.round_trip,
            of: PhantomData,
        }
    }

    /// Adds a valid value of the type as a sample, encoded both ways rmp-serde and hardpack
    /// write a struct (as an array, `to_vec`, and as a map of field names, `to_vec_named`;
    /// the second only where it differs), then attacked node by node: the largest claim at
    /// each collection and str, the extremes at each integer, each container nested deep
    /// enough to overflow the decoding stack, a bomb in an unknown key of each map, duplicate
    /// keys, every cut. A
    /// sample reaches what the tracer cannot: the struct variants of an untagged enum (which
    /// serde reads from a map only), a value only a validation accepts.
    pub fn sample(mut self, value: &T) -> Self
    where
        T: serde::Serialize,
    {
        let name = format!("sample-{}", self.settings.samples.len());
        match (hardpack::to_vec(value), hardpack::ser::to_vec_named(value)) {
            (Ok(compact), Ok(named)) => {
                if named != compact {
                    self.settings.samples.push((format!("{name}-named"), named));
                }
                self.settings.samples.push((name, compact));
            }
            (Err(e), _) | (_, Err(e)) => self.settings.sample_errors.push(format!("{name}: {e}")),
        }
        self
    }

    /// Adds a valid MessagePack document as a sample (see [`Check::sample`]), named `name` in
    /// the payloads' ids: a message captured from production, one another language wrote.
    pub fn sample_bytes(mut self, name: &str, bytes: impl Into<Vec<u8>>) -> Self {
        self.settings.samples.push((name.to_string(), bytes.into()));
        self
    }

    /// Adds each file of a directory (or one file) as a sample, named after its file: a
    /// directory of captured messages. Files are read as [`Check::payloads`] reads them.
    pub fn samples(mut self, path: impl AsRef<Path>) -> Self {
        match read_payloads(path.as_ref()) {
            Ok(files) => self
                .settings
                .samples
                .extend(files.into_iter().map(|p| (p.id, p.bytes.into_vec()))),
            Err(e) => self.settings.sample_errors.push(e),
        }
        self
    }

    /// A decode that holds more than `per_input_byte` heap bytes per input byte above `floor`
    /// counts as broken, whatever the decoder (default: [`DEFAULT_AMPLIFICATION`]). With
    /// hardpack as the decoder, the documented bound for its limits holds too.
    pub fn amplification_limit(mut self, per_input_byte: usize, floor: usize) -> Self {
        self.settings.amplification = Amplification {
            per_input_byte,
            floor,
        };
        self
    }

    /// With hardpack's decoder, also checks that each accepted value round-trips: encoding it,
    /// decoding that and encoding again gives the same bytes (bytes, not `PartialEq`: a NaN or
    /// a skipped field breaks equality). A value that does not is reported as a panic of the
    /// round trip. With another decoder the check fails: the round trip is hardpack's.
    pub fn round_trip(mut self) -> Self
    where
        T: serde::Serialize,
    {
        self.round_trip = Some(round_trips::<T>);
        if let Some(limits) = &self.decoder.limits {
            self.decoder.decode = hardpack_decoder::<T>(limits.clone(), self.round_trip);
        }
        self
    }

    /// Runs the payloads in `path` instead of the generated ones: "does this reported payload
    /// hurt my service". A file, or the files of a directory and its subdirectories, sorted,
    /// notes and metadata (`.md`, `.toml`, `.json`, `.txt`, `.dict`) left out, as
    /// `hardpack audit` reads them.
    pub fn payloads(mut self, path: impl AsRef<Path>) -> Self {
        self.settings.source = Source::Files(path.as_ref().to_path_buf());
        self
    }

    /// The stack of the thread each payload is decoded on (default 2 MiB, tokio's).
    pub fn stack_bytes(mut self, bytes: usize) -> Self {
        self.settings.stack_bytes = bytes;
        self
    }

    /// The most heap one decode may hold at once (default 1 GiB); above it the allocator
    /// refuses, which aborts the child, and the payload is reported over the ceiling.
    pub fn heap_ceiling(mut self, bytes: usize) -> Self {
        self.settings.heap_ceiling = bytes;
        self
    }

    /// How long one payload's decode may take (default 10 s).
    pub fn time_limit(mut self, limit: Duration) -> Self {
        self.settings.time_limit = limit;
        self
    }

    /// How many child processes decode at once, each a share of the payloads (default: the
    /// machine's cores, as `std::thread::available_parallelism` counts them, at most 8).
    pub fn jobs(mut self, jobs: usize) -> Self {
        self.settings.jobs = jobs.max(1);
        self
    }

    /// Fails (panics) with the report's table when any payload broke the decoder: see
    /// [`Report::broken`].
    pub fn assert_hardened(self) {
        self.run().assert_hardened();
    }

    /// Runs every payload, each in a guarded child process, and reports what each did.
    pub fn run(self) -> Report {
        let round_trip = self.round_trip;
        Checking {
            decoder: self.decoder,
            settings: self.settings,
            round_trips: round_trip.is_some(),
            for_type: ForType {
                trace: |samples| {
                    let _ = crate::shape::trace_with::<T>(samples);
                },
                generate: generate::<T>,
                passage: crate::shape::passage::<T>,
                decoder: Box::new(move |limits| hardpack_decoder::<T>(limits, round_trip)),
            },
        }
        .run()
    }
}

/// What a check does with its type, as functions: everything else a check does is the same
/// code for every type, compiled once, not once for each type checked.
struct ForType {
    /// Traces the type (in the trace child, which only has to get through it alive).
    trace: fn(&[crate::sample::Sample]),
    /// The payloads, from the trace with these samples' values, nested this deep.
    generate: fn(&[crate::sample::Sample], usize) -> Generated,
    /// The ledger's keys and the tags a document passes through.
    passage: PassageFn,
    /// hardpack's decoder under these limits (for a sweep's step), with the check's round trip.
    decoder: Box<dyn Fn(Limits) -> DecodeFn<'static> + Sync>,
}

/// [`crate::shape::passage`] for one type.
type PassageFn =
    fn(&crate::sample::Sample, &crate::shape::Names) -> Result<(Vec<String>, Vec<String>), String>;

/// A check being run: [`Check`]'s settings, the type's part as [`ForType`].
struct Checking<'a> {
    decoder: UnderCheck<'a>,
    settings: Settings,
    round_trips: bool,
    for_type: ForType,
}

impl Checking<'_> {
    /// [`Check::run`].
    fn run(self) -> Report {
        let ordinal = CHECKS_RUN.with(|c| {
            let n = c.get();
            c.set(n + 1);
            n
        });
        if let Some(traced) = trace_child_of() {
            if traced == ordinal {
                // Only the trace runs the type's `Deserialize`; the payloads are the parent's.
                let fill = std::env::var_os(TRACE_PLAIN_ENV).is_none();
                crate::shape::filling_nils(fill, || (self.for_type.trace)(&self.sample_values()));
                child_says("traced");
            } else {
                child_says("more-than-one-check");
            }
            std::process::exit(0)
        }
        match child_role() {
            Some(role) if role.check == ordinal => self.run_as_child(&role),
            Some(role) if ordinal < role.check => {
                // The test runs another check before the one this child is for: the child
                // cannot return what the parent's run of it returned.
                child_says("more-than-one-check");
                std::process::exit(0)
            }
            Some(_) => Report::skipped(self.settings.type_name),
            None => {
                let started = Instant::now();
                // A value handed where nil was accepted (an `Option`'s inside) can send a
                // type reading itself forever; traced without, such a type is still traced.
                let mut generated = match self.trace_kills_a_child(ordinal, true) {
                    None => self.load(),
                    Some(death) => match self.trace_kills_a_child(ordinal, false) {
                        None => crate::shape::filling_nils(false, || self.load()),
                        Some(_) => self.untraced(&death),
                    },
                };
                let sample_errors = self.add_samples(&mut generated.payloads);
                let mut report = self.run_as_parent(ordinal, generated, sample_errors);
                report.elapsed = started.elapsed();
                report
            }
        }
    }

    /// How deep the check nests each recursive path and each container of a sample: deep
    /// enough to overflow the stack it decodes on at [`MIN_FRAME_BYTES`] a level, which any
    /// decoder without a depth limit takes at least, and no deeper (at most
    /// [`RECURSION_DEPTH`](crate::RECURSION_DEPTH)): 131,073 levels on the default 2 MiB.
    /// A deeper bomb tests nothing more, and a type with hundreds of recursive paths would
    /// write gigabytes of them.
    fn recursion_depth(&self) -> usize {
        (self.settings.stack_bytes / MIN_FRAME_BYTES + 1).min(crate::typed::RECURSION_DEPTH)
    }

    /// Traces the type in a child process first: the type's own `Deserialize` may never end
    /// (a newtype holding `Option<Box<Self>>` read through serde's buffer recurses without
    /// consuming anything) and take the process down with a stack overflow, which must not be
    /// the test's. How the child died, when it did.
    fn trace_kills_a_child(&self, ordinal: usize, fill_nils: bool) -> Option<String> {
        if !matches!(self.settings.source, Source::Generated) {
            return None;
        }
        let mut command = self_command().ok()?.command();
        if !fill_nils {
            command.env(TRACE_PLAIN_ENV, "1");
        }
        let out = command
            .env(TRACE_CHILD_ENV, ordinal.to_string())
            .stdin(Stdio::null())
            .output()
            .ok()?;
        let said = String::from_utf8_lossy(&out.stdout);
        let answered = said
            .lines()
            .filter_map(|line| {
                line.find(LINE_PREFIX)
                    .map(|at| &line[at + LINE_PREFIX.len()..])
            })
            .any(|line| line == "traced" || line == "more-than-one-check");
        if answered {
            return None;
        }
        let stderr = String::from_utf8_lossy(&out.stderr);
        Some(match died(&stderr, out.status) {
            Outcome::StackOverflow => "its stack overflowed".to_string(),
            Outcome::OverHeapCeiling(what) => what,
            Outcome::Crashed(how) => how,
            other => format!("{other:?}"),
        })
    }

    /// What a check runs when tracing the type killed a child: the generic payloads and the
    /// samples, with the death as the reason the type was not traced.
    fn untraced(&self, death: &str) -> Generated {
        let error = crate::shape::TraceError {
            type_name: self.settings.type_name,
            reason: format!(
                "tracing its Deserialize killed the process that ran it ({death}): a type \
                 that reads itself without end, such as a newtype holding \
                 `Option<Box<Self>>` inside an internally tagged or untagged enum, takes \
                 down any decoder that gets there, whatever the input's nesting"
            ),
            nodes: Vec::new(),
            names: Default::default(),
        };
        Generated::untraced(crate::generic::generic(), Some(error), None)
    }

    /// Adds the samples' payloads; returns why a sample could not be used.
    fn add_samples(&self, payloads: &mut Vec<Payload>) -> Vec<String> {
        let mut errors = self.settings.sample_errors.clone();
        for (name, bytes) in &self.settings.samples {
            match crate::typed::sample_payloads(name, bytes, self.recursion_depth()) {
                Ok(more) => payloads.extend(more),
                Err(e) => errors.push(format!("the sample {name} cannot be used: {e}")),
            }
        }
        errors
    }

    /// The samples that parse as MessagePack, whose values help the trace.
    fn sample_values(&self) -> Vec<crate::sample::Sample> {
        self.settings
            .samples
            .iter()
            .filter_map(|(_, bytes)| crate::sample::Sample::parse(bytes).ok())
            .collect()
    }

    /// The payloads to run and what the trace saw; the samples' values help the trace.
    fn load(&self) -> Generated {
        match &self.settings.source {
            Source::Generated => {
                (self.for_type.generate)(&self.sample_values(), self.recursion_depth())
            }
            Source::Files(path) => {
                let (payloads, error) = match read_payloads(path) {
                    Ok(payloads) => (payloads, None),
                    Err(e) => (Vec::new(), Some(e)),
                };
                Generated::untraced(payloads, None, error)
            }
        }
    }

    /// In the child: decodes the payloads of the parent's file from the role's first on
    /// (under the sweep's step, in a sweep), a result line each, then ends the process (the
    /// parent reads the lines; the test harness must not go on).
    fn run_as_child(&self, role: &ChildRole) -> ! {
        use std::io::Write;
        let out = std::io::stdout();
        let say = |line: &str| {
            let mut lock = out.lock();
            let _ = writeln!(lock, "{LINE_PREFIX}{line}");
            let _ = lock.flush();
        };
        if !alloc::is_installed() {
            say("no-meter");
            std::process::exit(0);
        }
        let swept;
        let decode = match (&self.settings.sweep, &self.decoder.limits) {
            (None, _) => &self.decoder.decode,
            (Some((limit, values)), Some(limits)) if role.step < values.len() => {
                swept = (self.for_type.decoder)(limits.clone().with(*limit, values[role.step]));
                &swept
            }
            (Some(_), _) => {
                say("no-sweep");
                std::process::exit(0);
            }
        };
        // A death is survived by a fork where the OS has one: this process serves workers.
        #[cfg(target_os = "linux")]
        crate::fork::serve(&say);
        // Every payload is read and decoded on one thread of the check's stack size: a thread
        // a payload mapped, faulted in and unmapped a stack and an allocator arena for each,
        // and handing each payload to a thread and its result back cost four thread switches.
        // What a payload measures is still its own: the counters are taken before and after
        // it. A panic that the decode's guard does not catch ends the thread; the payload it
        // was on is blamed here.
        let at = AtomicUsize::new(role.first);
        let decoded = std::thread::scope(|scope| {
            std::thread::Builder::new()
                .name("hardpack-check decoder".into())
                .stack_size(self.settings.stack_bytes)
                .spawn_scoped(scope, || self.decode_payloads(decode, role, &at, &say))
                .map_err(|e| format!("no thread: {e}"))?
                .join()
                .map_err(|_| "the thread died".to_string())
        });
        if let Err(why) = decoded {
            let index = at.load(Ordering::Relaxed);
            say(&format!("done\t{index}\tpanicked\t0\t0\t0\t-\t-\t{why}"));
        }
        std::process::exit(0)
    }

    /// The child's payloads, as the parent writes them to its standard input from
    /// `role.first` on, each read and decoded between a `start` line and a `done` line. A
    /// payload's `done` line and the next one's `start` go out in one write: one wakeup of
    /// the parent a payload. The read of a payload's bytes is inside its own lines, so a death
    /// or a hang while reading it is blamed on it. Read unbuffered, each payload after its
    /// index: a worker forked after a death starts where the dead one stopped reading.
    fn decode_payloads(
        &self,
        decode: &DecodeFn<'_>,
        role: &ChildRole,
        at: &AtomicUsize,
        say: &(dyn Fn(&str) + Sync),
    ) {
        let mut payloads = match unbuffered_stdin() {
            Ok(stdin) => PayloadReader(stdin),
            Err(e) => return say(&format!("no-payloads\tno standard input: {e}")),
        };
        // A worker forked after a death on the share's last payload finds nothing left, and
        // says so to a parent no longer listening.
        let mut index = match payloads.index() {
            Ok(Some(index)) => index,
            Ok(None) => {
                let (first, end) = (role.first, role.end);
                return say(&format!(
                    "no-payloads\tnone came: {first} to {end} were due"
                ));
            }
            Err(e) => return say(&format!("no-payloads\t{}", one_line(&e))),
        };
        if index >= role.end {
            return;
        }
        say(&format!("start\t{index}"));
        loop {
            at.store(index, Ordering::Relaxed);
            // The child ends when its payloads are decoded: each may as well be `'static`,
            // so that a type that borrows from its input can be decoded from it.
            let bytes: &'static [u8] = match payloads.payload() {
                Ok(bytes) => Box::leak(bytes.into_boxed_slice()),
                Err(e) => {
                    say(&format!("no-payloads\t{}", one_line(&e)));
                    return;
                }
            };
            let ((verdict, charged, message, offset), cost) = self.decode_one(decode, bytes);
            let charged = charged.map_or_else(|| "-".to_string(), |c| c.to_string());
            let offset = offset.map_or_else(|| "-".to_string(), |c| c.to_string());
            let done = format!(
                "done\t{index}\t{verdict}\t{}\t{}\t{}\t{charged}\t{offset}\t{}",
                cost.peak_bytes,
                cost.allocations,
                cost.elapsed.as_micros(),
                one_line(&message)
            );
            if index + 1 >= role.end {
                say(&done);
                return;
            }
            index = match payloads.index() {
                Ok(Some(next)) => next,
                Ok(None) => {
                    say(&done);
                    let end = role.end;
                    return say(&format!(
                        "no-payloads\tthey end after {index}, before {end}"
                    ));
                }
                Err(e) => {
                    say(&done);
                    return say(&format!("no-payloads\t{}", one_line(&e)));
                }
            };
            say(&format!("{done}\n{LINE_PREFIX}start\t{index}"));
        }
    }

    /// One payload on the decoding thread: the verdict, the charge and the message, and what
    /// the decode cost (the round trip, after it, is not part of the cost).
    fn decode_one(&self, decode: &DecodeFn<'_>, bytes: &'static [u8]) -> (Verdict, alloc::Cost) {
        let guarded = |f: &mut dyn FnMut() -> Result<Decoded, Refusal>| {
            alloc::refusing_above(self.settings.heap_ceiling, || {
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
            })
        };
        let (result, cost) = alloc::measure(|| guarded(&mut || decode(bytes)));
        let verdict = match result {
            Ok(Ok(decoded)) => {
                let mut then = decoded.then;
                let after = guarded(&mut || {
                    if let Some(check) = then.take() {
                        check();
                    }
                    Err(Refusal {
                        message: String::new(),
                        offset: None,
                    })
                });
                match after {
                    Err(panic) => (
                        "panicked",
                        None,
                        format!("round trip: {}", panic_message(panic.as_ref())),
                        None,
                    ),
                    Ok(_) => ("accepted", decoded.charged, String::new(), None),
                }
            }
            Ok(Err(e)) => ("refused", None, e.message, e.offset),
            Err(panic) => ("panicked", None, panic_message(panic.as_ref()), None),
        };
        (verdict, cost)
    }

    /// In the parent: children, one at a time, until every payload has a result.
    fn run_as_parent(
        self,
        ordinal: usize,
        generated: Generated,
        sample_errors: Vec<String>,
    ) -> Report {
        let Generated {
            payloads,
            error,
            file_error,
            gaps: trace_gaps,
            unseen,
            places: type_places,
            place_keys,
            nodes,
            names,
        } = generated;
        let mut sample_errors = sample_errors;
        let passages = self.passages(&payloads, &names, &mut sample_errors);
        let trace_error = error.map(|e| e.to_string()).or(file_error);
        let steps: Vec<Option<usize>> = match &self.settings.sweep {
            None => vec![None],
            Some((_, values)) => values.iter().copied().map(Some).collect(),
        };
        let mut rows: Vec<Option<Row>> = vec![None; payloads.len() * steps.len()];
        let mut failure = match (&self.settings.sweep, self.round_trips, &self.decoder.limits) {
            (Some(_), _, None) => Some(
                "a limit sweep needs hardpack as the decoder: only its limits can be swept".into(),
            ),
            (_, true, None) => Some(
                "a round trip needs hardpack as the decoder: it encodes and decodes with hardpack"
                    .into(),
            ),
            _ => None,
        };
        let processes = AtomicUsize::new(0);
        for (step, value) in steps.iter().enumerate() {
            let rows = &mut rows[step * payloads.len()..(step + 1) * payloads.len()];
            if failure.is_none() {
                failure = self
                    .run_children(ordinal, step, &payloads, rows, &processes)
                    .err();
            }
            for row in rows.iter_mut().flatten() {
                row.limit_value = *value;
            }
        }
        let rows: Vec<Row> = rows
            .into_iter()
            .enumerate()
            .map(|(at, row)| {
                let index = at % payloads.len();
                row.unwrap_or_else(|| {
                    let mut row = Row::new(index, &payloads[index], Outcome::NotRun);
                    row.limit_value = steps[at / payloads.len()];
                    row
                })
            })
            .collect();
        let decoded_attack_keys = |index: usize| -> Option<BTreeSet<String>> {
            // Followed as a tree, a document costs tens of bytes an item: an attack of
            // millions (a claim with its body) is not followed, and a line only it would
            // close stays open.
            let bytes = &payloads[index].bytes;
            if bytes.len() > MAX_FOLLOWED_ATTACK {
                return None;
            }
            let sample = crate::sample::Sample::parse(bytes).ok()?;
            let (keys, tags) = (self.for_type.passage)(&sample, &names).ok()?;
            Some(keys.into_iter().chain(tags).collect())
        };
        let ledger = match self.settings.source {
            Source::Generated => Ledger::new(crate::ledger::Entries {
                nodes: &nodes,
                passages: &passages,
                place_keys: &place_keys,
                rows: &rows,
                decoded_attack_keys: &decoded_attack_keys,
                trace_error: trace_error.as_deref(),
            }),
            Source::Files(_) => Ledger::default(),
        };
        Report {
            type_name: self.settings.type_name.to_string(),
            decoder: self.decoder.name,
            ledger,
            passages,
            limits: self.decoder.limits,
            stack_bytes: self.settings.stack_bytes,
            heap_ceiling: self.settings.heap_ceiling,
            time_limit: self.settings.time_limit,
            amplification: self.settings.amplification,
            build: crate::report::BUILD,
            sweep: self.settings.sweep.map(|(limit, _)| limit),
            trace_error,
            trace_gaps,
            unseen,
            type_places,
            failure,
            verdict_needs_reach: matches!(self.settings.source, Source::Generated),
            samples: self.settings.samples.len(),
            sample_errors,
            rows,
            elapsed: Duration::ZERO,
            processes: processes.into_inner(),
        }
    }

    /// Which nodes of the type each valid document passes through (each sample given, each
    /// document the check wrote to reach a place); a sample the type itself refuses passes
    /// none, and says so in `errors`.
    fn passages(
        &self,
        payloads: &[Payload],
        names: &crate::shape::Names,
        errors: &mut Vec<String>,
    ) -> Vec<Passage> {
        let mut out = Vec::new();
        for (row, payload) in payloads.iter().enumerate() {
            if payload.reaches.is_empty() {
                continue;
            }
            let given = self
                .settings
                .samples
                .iter()
                .find(|(name, _)| payload.id == format!("{name}.valid"))
                .map(|(name, _)| name.clone());
            let Ok(sample) = crate::sample::Sample::parse(&payload.bytes) else {
                continue;
            };
            match (self.for_type.passage)(&sample, names) {
                Ok((keys, tags)) => out.push(Passage {
                    sample: given.clone().unwrap_or_else(|| payload.id.clone()),
                    given: given.is_some(),
                    row,
                    keys,
                    tags,
                }),
                Err(e) => {
                    if let Some(name) = given {
                        errors.push(format!(
                            "the sample {name} is not a value of {}: {e}; it closes no place \
                             of the type",
                            self.settings.type_name
                        ))
                    }
                }
            }
        }
        out
    }

    /// Runs one child in `role` (from its first payload, under its sweep step); returns
    /// where the next child starts.
    /// The payloads of one sweep step, shared among [`Check::jobs`] children at once, each
    /// a contiguous share; the first error stops the check.
    fn run_children(
        &self,
        check: usize,
        step: usize,
        payloads: &[Payload],
        rows: &mut [Option<Row>],
        processes: &AtomicUsize,
    ) -> Result<(), String> {
        let jobs = self.settings.jobs.clamp(1, payloads.len().max(1));
        let time_limit = self.settings.time_limit;
        let this_test = &self_command()?;
        let mut shares = Vec::with_capacity(jobs);
        let mut rest = rows;
        let mut first = 0;
        for job in 0..jobs {
            let end = payloads.len() * (job + 1) / jobs;
            let (share, after) = rest.split_at_mut(end - first);
            shares.push((first, end, share));
            rest = after;
            first = end;
        }
        std::thread::scope(|scope| {
            let running: Vec<_> = shares
                .into_iter()
                .map(|(first, end, share)| {
                    scope.spawn(move || {
                        let mut next = first;
                        while next < end {
                            let role = ChildRole {
                                check,
                                step,
                                first: next,
                                end,
                            };
                            processes.fetch_add(1, Ordering::Relaxed);
                            next = one_child(this_test, time_limit, &role, payloads, share, first)?;
                        }
                        Ok(())
                    })
                })
                .collect();
            // Every child is waited for; the first error is the check's.
            let results: Vec<Result<(), String>> = running
                .into_iter()
                .map(|job| {
                    job.join()
                        .unwrap_or(Err("a child's reader panicked".into()))
                })
                .collect();
            results.into_iter().find(Result::is_err).unwrap_or(Ok(()))
        })
    }
}

/// One child process decoding the payloads from `role.first` to `role.end`, each result
/// into its slot of `share` (the rows from payload `base` on), until it ends or dies;
/// returns where the next child starts.
fn one_child(
    this_test: &SelfCommand,
    time_limit: Duration,
    role: &ChildRole,
    payloads: &[Payload],
    share: &mut [Option<Row>],
    base: usize,
) -> Result<usize, String> {
    let first = role.first;
    let mut child = this_test
        .command()
        .env(CHILD_ENV, role.to_env())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .stdin(Stdio::piped())
        .spawn()
        .map_err(|e| format!("could not start the child process: {e}"))?;
    let stdin = child.stdin.take().ok_or("no child stdin")?;
    let stdout = child.stdout.take().ok_or("no child stdout")?;
    let stderr = child.stderr.take().ok_or("no child stderr")?;
    // The child's standard error, cut at each death a fork survived: each piece is the last
    // words of one death, and the last piece is what came after the last of them.
    let (last_words_tx, last_words) = mpsc::channel();
    std::thread::spawn(move || {
        let mut stderr = BufReader::new(stderr);
        let mut words = String::new();
        let mut line = Vec::new();
        loop {
            line.clear();
            match stderr.read_until(b'\n', &mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            let text = String::from_utf8_lossy(&line);
            if text.trim_end() == DEATH_MARK {
                if last_words_tx.send(std::mem::take(&mut words)).is_err() {
                    return;
                }
            } else {
                words.push_str(&text);
                keep_the_end(&mut words, MAX_LAST_WORDS);
            }
        }
        let _ = last_words_tx.send(words);
    });
    // The longest wait for a death's last words once the child has said it died.
    let last_words_wait = Duration::from_secs(10);
    let (lines_tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            // libtest may have printed part of a line ("test name ... ") before ours.
            if let Some(at) = line.find(LINE_PREFIX) {
                let rest = &line[at + LINE_PREFIX.len()..];
                if lines_tx.send(rest.to_string()).is_err() {
                    break;
                }
            }
        }
    });
    let ours = &payloads[first.min(payloads.len())..role.end.min(payloads.len())];
    std::thread::scope(|scope| {
        scope.spawn(move || {
            // A child that dies or ends closes the pipe: what it did not read is not needed.
            let _ = write_payloads(&mut std::io::BufWriter::new(stdin), first, ours);
        });
        let mut follow = || -> Result<usize, String> {
            let mut in_flight: Option<(usize, Instant)> = None;
            let mut next = first;
            loop {
                let wait = match in_flight {
                    Some((_, since)) => time_limit.saturating_sub(since.elapsed()),
                    // Startup (building the payloads, the test harness) gets a generous wait.
                    None => time_limit.max(Duration::from_secs(60)),
                };
                match lines.recv_timeout(wait) {
                    Ok(line) => {
                        let fields: Vec<&str> = line.splitn(10, '\t').collect();
                        match fields.as_slice() {
                            ["no-meter"] => {
                                let _ = child.wait();
                                return Err("the test binary's global allocator is not \
                                        hardpack_check::CountingAlloc: add `#[global_allocator] static \
                                        ALLOC: hardpack_check::CountingAlloc = \
                                        hardpack_check::CountingAlloc;` so peak heap can be measured"
                                    .into());
                            }
                            ["no-payloads", why] => {
                                let _ = child.wait();
                                return Err(format!(
                                    "the child process could not read the payloads: {why}"
                                ));
                            }
                            ["no-sweep"] => {
                                let _ = child.wait();
                                return Err("the child found no such sweep step".into());
                            }
                            ["more-than-one-check"] => {
                                let _ = child.wait();
                                return Err("this test runs more than one check: a check's child \
                                        process runs the test again and cannot get past an earlier \
                                        check; give each check its own #[test]"
                                    .into());
                            }
                            ["no-fork", why] => {
                                let _ = child.wait();
                                return Err(format!("the child process could not go on: {why}"));
                            }
                            ["died", status] => {
                                let status = wait_status(status)?;
                                let words = last_words.recv_timeout(last_words_wait);
                                let Some((index, since)) = in_flight.take() else {
                                    return Err(format!(
                                        "the child process's worker died ({status}) between \
                                         payloads: {}",
                                        tail(&words.unwrap_or_default())
                                    ));
                                };
                                let outcome = died(&words.unwrap_or_default(), status);
                                if let (Some(slot), Some(payload)) =
                                    (row_at(share, base, index), payloads.get(index))
                                {
                                    let mut row = Row::new(index, payload, outcome);
                                    row.time = since.elapsed();
                                    *slot = Some(row);
                                }
                                next = index + 1;
                                if next >= role.end {
                                    return Ok(next);
                                }
                            }
                            ["start", index] => {
                                in_flight = index.parse().ok().map(|i| (i, Instant::now()));
                            }
                            ["done", index, verdict, peak, allocations, micros, charged, offset, message] =>
                            {
                                let index: usize =
                                    index.parse().map_err(|_| "a bad result line")?;
                                let outcome = match *verdict {
                                    "accepted" => Outcome::Accepted,
                                    "refused" => Outcome::Refused(message.to_string()),
                                    _ => Outcome::Panicked(message.to_string()),
                                };
                                if let (Some(slot), Some(payload)) =
                                    (row_at(share, base, index), payloads.get(index))
                                {
                                    let mut row = Row::new(index, payload, outcome);
                                    row.peak_heap_bytes = peak.parse().unwrap_or(0);
                                    row.allocations = allocations.parse().unwrap_or(0);
                                    row.time = Duration::from_micros(micros.parse().unwrap_or(0));
                                    row.charged_bytes = charged.parse().ok();
                                    row.refused_at = offset.parse().ok();
                                    *slot = Some(row);
                                }
                                in_flight = None;
                                next = index + 1;
                            }
                            _ => {}
                        }
                    }
                    Err(mpsc::RecvTimeoutError::Timeout) => {
                        let _ = child.kill();
                        let _ = child.wait();
                        return match in_flight {
                            Some((index, since)) => {
                                if let (Some(slot), Some(payload)) =
                                    (row_at(share, base, index), payloads.get(index))
                                {
                                    let mut row = Row::new(index, payload, Outcome::TimedOut);
                                    row.time = since.elapsed();
                                    *slot = Some(row);
                                }
                                Ok(index + 1)
                            }
                            None => Err("the child process did not start decoding in time".into()),
                        };
                    }
                    Err(mpsc::RecvTimeoutError::Disconnected) => {
                        let status = child.wait().map_err(|e| e.to_string())?;
                        let stderr = last_words.recv_timeout(last_words_wait).unwrap_or_default();
                        return match in_flight {
                            Some((index, since)) => {
                                let outcome = died(&stderr, status);
                                if let (Some(slot), Some(payload)) =
                                    (row_at(share, base, index), payloads.get(index))
                                {
                                    let mut row = Row::new(index, payload, outcome);
                                    row.time = since.elapsed();
                                    *slot = Some(row);
                                }
                                Ok(index + 1)
                            }
                            None if next > first || next >= role.end => Ok(next),
                            None => Err(format!(
                                "the child process ended ({status}) before decoding anything: is \
                                     the check in a #[test] or main that runs it again? {}",
                                tail(&stderr)
                            )),
                        };
                    }
                }
            }
        };
        let result = follow();
        // Every way out of `follow` leaves the child ended, so the writer ends too.
        let _ = child.kill();
        let _ = child.wait();
        result
    })
}

/// The most of a child's standard error kept between two deaths: a death's cause is in its
/// last lines, and a decoder that writes on every payload must not fill the parent.
const MAX_LAST_WORDS: usize = 64 << 10;

/// Cuts `text` to about its last `most` bytes, at a line's start where there is one, once it
/// holds twice that.
fn keep_the_end(text: &mut String, most: usize) {
    if text.len() <= 2 * most {
        return;
    }
    let Some(from) = (text.len() - most..=text.len()).find(|&at| text.is_char_boundary(at)) else {
        return;
    };
    // The last line is kept, in part if it is longer than `most`.
    let tail = &text[from..];
    let before_the_last_line = tail.strip_suffix('\n').unwrap_or(tail);
    let cut = before_the_last_line
        .find('\n')
        .map_or(from, |at| from + at + 1);
    text.drain(..cut);
}

/// A worker's raw wait status, as the child says it after a death.
fn wait_status(said: &str) -> Result<std::process::ExitStatus, String> {
    let raw: i32 = said
        .parse()
        .map_err(|_| format!("a bad wait status: {said}"))?;
    #[cfg(unix)]
    return Ok(std::os::unix::process::ExitStatusExt::from_raw(raw));
    #[cfg(not(unix))]
    Err(format!(
        "a wait status ({raw}) from a child that cannot fork"
    ))
}

/// The slot of payload `index` in a share of the rows that starts at payload `base`.
fn row_at(share: &mut [Option<Row>], base: usize, index: usize) -> Option<&mut Option<Row>> {
    index.checked_sub(base).and_then(|at| share.get_mut(at))
}

/// [`crate::fuzz::assert_round_trips`] for a type that may borrow: the encoding it decodes
/// again is leaked (this runs in a child process, which ends after its payloads).
fn round_trips<T: Deserialize<'static> + serde::Serialize>(value: &T) {
    let Ok(first) = hardpack::to_vec(value) else {
        return;
    };
    let first: &'static [u8] = Box::leak(first.into_boxed_slice());
    let again: T = hardpack::from_slice(first)
        .unwrap_or_else(|e| panic!("what the type encoded does not decode: {e}"));
    let second = hardpack::to_vec(&again).expect("a value that encoded once encodes again");
    assert!(
        first == second.as_slice(),
        "decode -> encode -> decode -> encode gave other bytes: {first:02x?} then {second:02x?}"
    );
}

/// A line from a child to its parent.
fn child_says(what: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{LINE_PREFIX}{what}");
    let _ = out.flush();
}

/// The largest attack that decoded whose passage through the type is followed to close a
/// line nothing else closed.
const MAX_FOLLOWED_ATTACK: usize = 1 << 20;

/// What a child process is for.
struct ChildRole {
    /// The ordinal of the check it runs.
    check: usize,
    /// In a sweep, the index of the value it runs under.
    step: usize,
    /// The payload it starts at.
    first: usize,
    /// The payload it stops before: another child decodes those after it.
    end: usize,
}

impl ChildRole {
    /// The role as the child's environment carries it.
    fn to_env(&self) -> String {
        format!("{}:{}:{}:{}", self.check, self.step, self.first, self.end)
    }
}

/// In a child that traces the type first: the ordinal of the check it traces.
fn trace_child_of() -> Option<usize> {
    std::env::var(TRACE_CHILD_ENV).ok()?.parse().ok()
}

/// This process's role: `Some` in a child.
fn child_role() -> Option<ChildRole> {
    let value = std::env::var_os(CHILD_ENV)?;
    let value = value.to_str()?;
    let mut parts = value.split(':');
    let mut number = || parts.next()?.parse().ok();
    let (check, step, first, end) = (number()?, number()?, number()?, number()?);
    Some(ChildRole {
        check,
        step,
        first,
        end,
    })
}

/// Writes `payloads`, the first of which is payload `first`, as a child reads them: each as
/// its index, its length and its pieces, a piece as the length of its unit, how many times
/// the unit is repeated, and the unit (every number 8 bytes, little-endian); the child builds
/// the whole. Through a pipe, not a file: a type's attacks with their bodies can come to
/// gigabytes, which a disk may not have free. A bomb of 16 MiB crosses it as a few bytes and
/// a count.
fn write_payloads(
    out: &mut impl std::io::Write,
    first: usize,
    payloads: &[Payload],
) -> std::io::Result<()> {
    for (index, payload) in (first..).zip(payloads) {
        out.write_all(&(index as u64).to_le_bytes())?;
        out.write_all(&(payload.bytes.len() as u64).to_le_bytes())?;
        for (unit, times) in payload.bytes.pieces() {
            out.write_all(&(unit.len() as u64).to_le_bytes())?;
            out.write_all(&(times as u64).to_le_bytes())?;
            out.write_all(unit)?;
        }
    }
    out.flush()
}

/// The most room a child reserves for a payload before reading it.
const MAX_RESERVED_PAYLOAD: usize = 64 << 20;

/// A child's reading of its payloads, one at a time, as [`write_payloads`] wrote them.
struct PayloadReader<R>(R);

impl<R: Read> PayloadReader<R> {
    /// The next number; `None` at the end of the input.
    fn number(&mut self) -> Result<Option<u64>, String> {
        let mut number = [0u8; 8];
        match self.0.read_exact(&mut number) {
            Ok(()) => Ok(Some(u64::from_le_bytes(number))),
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Ok(None),
            Err(e) => Err(e.to_string()),
        }
    }

    /// The next payload's index; `None` after the last.
    fn index(&mut self) -> Result<Option<usize>, String> {
        self.number()?
            .map(|n| usize::try_from(n).map_err(|_| format!("a payload index of {n}")))
            .transpose()
    }

    /// The payload whose index was just read, built whole from its pieces.
    fn payload(&mut self) -> Result<Vec<u8>, String> {
        let Some(length) = self.number()? else {
            return Err("a payload index with no payload after it".into());
        };
        let cut_short =
            |got: usize| format!("a payload of {length} bytes is cut short after {got}");
        // Room for the whole payload up to a cap, so that it is built in one buffer and not
        // grown by copies; a damaged length reserves no more than the cap. The pieces are the
        // parent's (this is not hostile input): a repeat is built as its count says, up to
        // the length, and a damaged count is refused only past it.
        let room =
            usize::try_from(length).map_or(MAX_RESERVED_PAYLOAD, |n| n.min(MAX_RESERVED_PAYLOAD));
        let mut bytes = Vec::with_capacity(room);
        while (bytes.len() as u64) < length {
            let left = length - bytes.len() as u64;
            let (Some(unit), Some(times)) = (self.number()?, self.number()?) else {
                return Err(cut_short(bytes.len()));
            };
            if unit.checked_mul(times).is_none_or(|n| n > left) {
                return Err(format!(
                    "a payload of {length} bytes has a piece of {unit} bytes {times} times \
                     after {}",
                    bytes.len()
                ));
            }
            if times == 0 {
                continue;
            }
            let start = bytes.len();
            (&mut self.0)
                .take(unit)
                .read_to_end(&mut bytes)
                .map_err(|e| e.to_string())?;
            if (bytes.len() - start) as u64 != unit {
                return Err(cut_short(bytes.len()));
            }
            // The unit's copies, doubling: a few copies of long runs, not one of each unit.
            let unit = bytes.len() - start;
            let times = times as usize;
            let mut copies = 1;
            while copies < times {
                let more = copies.min(times - copies);
                bytes.extend_from_within(start..start + more * unit);
                copies += more;
            }
        }
        Ok(bytes)
    }
}

/// The standard input, read without a buffer of its own: a worker forked after a death
/// starts where the dead one stopped reading (see `fork.rs`).
fn unbuffered_stdin() -> std::io::Result<Box<dyn Read>> {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        let input = std::io::stdin().as_fd().try_clone_to_owned()?;
        Ok(Box::new(std::fs::File::from(input)))
    }
    #[cfg(not(unix))]
    Ok(Box::new(BufReader::new(std::io::stdin())))
}

/// The command that runs this check again: the same test alone, or the same program with
/// its own arguments.
fn self_command() -> Result<SelfCommand, String> {
    let exe = std::env::current_exe().map_err(|e| format!("no current executable: {e}"))?;
    let args = match std::thread::current().name() {
        Some(name) if name != "main" => [name, "--exact", "--nocapture", "--test-threads=1"]
            .map(std::ffi::OsString::from)
            .to_vec(),
        _ => std::env::args_os().skip(1).collect(),
    };
    Ok(SelfCommand { exe, args })
}

/// How to run this test or program again, as a child: found on the thread that runs the
/// check (libtest names it after the test), used by the threads that watch the children.
struct SelfCommand {
    exe: PathBuf,
    args: Vec<std::ffi::OsString>,
}

impl SelfCommand {
    fn command(&self) -> Command {
        let mut command = Command::new(&self.exe);
        command.args(&self.args);
        command
    }
}

/// What killed a child, from its standard error and exit status.
fn died(stderr: &str, status: std::process::ExitStatus) -> Outcome {
    let windows_overflow = cfg!(windows)
        && status.code().map(|c| c as u32) == Some(crate::guard::STATUS_STACK_OVERFLOW);
    if stderr.contains("has overflowed its stack") || windows_overflow {
        Outcome::StackOverflow
    } else if let Some(line) = stderr.lines().find(|l| l.contains("memory allocation of")) {
        // "memory allocation of 4294967296 bytes failed": the size asked.
        Outcome::OverHeapCeiling(line.trim().to_string())
    } else {
        let how = match crate::guard::exit_code(status) {
            Ok(code) => format!("exit status {code}"),
            Err(how) => how,
        };
        Outcome::Crashed(format!("{how}; {}", tail(stderr)))
    }
}

/// The last non-empty line of a process's standard error.
fn tail(stderr: &str) -> String {
    stderr
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
        .to_string()
}

fn one_line(message: &str) -> String {
    message.replace(['\n', '\t', '\r'], " ")
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "a panic".into())
}

/// The payload files of `path` (itself if a file; a directory walked as `hardpack audit`
/// walks it, see [`crate::guard::collect_payloads`]), each named by its file.
fn read_payloads(path: &Path) -> Result<Vec<Payload>, String> {
    crate::guard::collect_payloads(&[path.to_path_buf()])?
        .iter()
        .map(|p| {
            std::fs::read(p)
                .map(|bytes| {
                    let name = p
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    Payload::new(name, format!("the payload file {}", p.display()), bytes)
                })
                .map_err(|e| format!("{}: {e}", p.display()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_payloads_read_back_as_written() {
        let payloads: Vec<Payload> = [&b""[..], b"\x91\xc0", b"abc"]
            .iter()
            .enumerate()
            .map(|(i, b)| Payload::new(format!("p{i}"), "", b.to_vec()))
            .collect();
        let mut written = Vec::new();
        write_payloads(&mut written, 7, &payloads).unwrap();
        let mut all = PayloadReader(&written[..]);
        assert_eq!(all.index(), Ok(Some(7)));
        assert_eq!(all.payload(), Ok(Vec::new()));
        assert_eq!(all.index(), Ok(Some(8)));
        assert_eq!(all.payload(), Ok(vec![0x91, 0xc0]));
        assert_eq!(all.index(), Ok(Some(9)));
        assert_eq!(all.payload(), Ok(b"abc".to_vec()));
        assert_eq!(all.index(), Ok(None));
    }

    #[test]
    fn a_reader_stops_at_the_end_of_its_payload() {
        // What a worker forked after a death reads starts at the next payload's index.
        let payloads: Vec<Payload> = [&b"\x01\x02"[..], b"\x03"]
            .iter()
            .map(|b| Payload::new("p", "", b.to_vec()))
            .collect();
        let mut written = Vec::new();
        write_payloads(&mut written, 0, &payloads).unwrap();
        let mut input = &written[..];
        let mut first = PayloadReader(&mut input);
        assert_eq!(first.index(), Ok(Some(0)));
        assert_eq!(first.payload(), Ok(vec![1, 2]));
        let mut next = PayloadReader(&mut input);
        assert_eq!(next.index(), Ok(Some(1)));
        assert_eq!(next.payload(), Ok(vec![3]));
        assert_eq!(next.index(), Ok(None));
    }

    #[test]
    fn what_a_child_says_on_its_standard_error_is_kept_from_its_end() {
        let mut said = String::new();
        for payload in 0..10_000 {
            said.push_str(&format!("payload {payload}: a warning é\n"));
            keep_the_end(&mut said, 1_000);
        }
        said.push_str("thread 'hardpack-check decoder' has overflowed its stack\n");
        keep_the_end(&mut said, 1_000);
        assert!(said.len() <= 2_000, "{} bytes kept", said.len());
        assert!(said.starts_with("payload "), "{said}");
        assert!(said.contains("payload 9999: a warning é\n"), "{said}");
        assert!(said.ends_with("has overflowed its stack\n"), "{said}");
        // A line longer than what is kept is cut between characters.
        let mut long = "é".repeat(3_000);
        keep_the_end(&mut long, 1_000);
        assert!(
            (1_000..=1_001).contains(&long.len()),
            "{} bytes kept",
            long.len()
        );
        let mut long_line = format!("{}\n", "x".repeat(5_000));
        keep_the_end(&mut long_line, 1_000);
        assert_eq!(long_line, format!("{}\n", "x".repeat(999)));
    }

    #[test]
    fn a_repeated_piece_is_built_whole() {
        let bomb = crate::PayloadBytes::from(vec![0x81, 0xa1, b'k'])
            .then_repeat(&[0x91, 0x92], 100_000)
            .then(&[0xc0])
            .then_repeat(&[0xc0], 99_999);
        let payloads = [Payload::new("bomb", "", bomb.clone())];
        let mut written = Vec::new();
        write_payloads(&mut written, 0, &payloads).unwrap();
        assert!(written.len() < 100, "{} bytes written", written.len());
        let mut all = PayloadReader(&written[..]);
        assert_eq!(all.index(), Ok(Some(0)));
        let expected = [
            vec![0x81, 0xa1, b'k'],
            [0x91, 0x92].repeat(100_000),
            vec![0xc0; 100_000],
        ]
        .concat();
        assert_eq!(all.payload().unwrap(), expected);
        assert_eq!(all.index(), Ok(None));
    }

    #[test]
    fn a_damaged_length_is_an_error() {
        // A length with no pieces after it, then one whose piece claims more than it.
        let bytes = [&u64::MAX.to_le_bytes()[..], b"abc"].concat();
        let err = PayloadReader(&bytes[..]).payload().unwrap_err();
        assert!(err.contains("cut short after 0"), "{err}");
        let bytes = [5u64, 2, 3]
            .iter()
            .flat_map(|n| n.to_le_bytes())
            .chain(*b"ab")
            .collect::<Vec<u8>>();
        let err = PayloadReader(&bytes[..]).payload().unwrap_err();
        assert!(err.contains("a piece of 2 bytes 3 times after 0"), "{err}");
    }
}
