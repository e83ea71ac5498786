//! The guarded check, end to end: hardpack on a recursive type is clean; rmp-serde on the same
//! type overflows the stack and the check reports it as that payload's result and goes on; a
//! hand-written `Deserialize` that preallocates from an untrusted length is caught at the heap
//! ceiling.

use hardpack::Limit;
use hardpack_check::{check, CountingAlloc, Outcome};
use serde::de::{SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

#[allow(dead_code)]
#[derive(Deserialize, Debug)]
enum Tree {
    Leaf,
    Boxed(Box<Tree>),
    List(Vec<Tree>),
}

#[allow(dead_code)]
#[derive(Deserialize, Debug)]
struct Request {
    id: u64,
    method: String,
    tree: Tree,
}

#[test]
fn hardpack_decoding_a_recursive_type_is_hardened() {
    let report = check::<Request>().run();
    report.assert_hardened();
    assert!(report.rows.len() > 100, "{}", report.text());
    assert!(report.rows.iter().any(|r| r.id.ends_with(".nested")));
    // Every nested payload refused at the depth limit.
    for row in report.rows.iter().filter(|r| r.id.ends_with(".nested")) {
        assert!(
            matches!(&row.outcome, Outcome::Refused(m) if m.contains("max_depth")),
            "{row:?}"
        );
    }
    let worst = report.worst_amplification().unwrap();
    assert!(
        worst.peak_heap_bytes > 0,
        "the meter measured nothing: {worst:?}"
    );
}

/// The stack on which rmp-serde's recursion (up to its own depth limit of 1024) overflows:
/// tokio's 2 MiB in a debug build, less in an optimised one, whose frames are smaller.
const SMALL_STACK: usize = if cfg!(debug_assertions) {
    2 << 20
} else {
    64 << 10
};

#[test]
fn rmp_serde_overflowing_the_stack_is_that_payloads_result_and_the_check_goes_on() {
    // Three children at once, each a share of the payloads, each started again after a death.
    let report = check::<Request>()
        .decoder("rmp-serde", |bytes| rmp_serde::from_slice::<Request>(bytes))
        .stack_bytes(SMALL_STACK)
        .jobs(3)
        .run();
    assert!(!report.is_hardened());
    let overflows: Vec<_> = report
        .rows
        .iter()
        .filter(|r| r.outcome == Outcome::StackOverflow)
        .collect();
    assert!(!overflows.is_empty(), "{}", report.text());
    // Each a recursion: a nested path of the type, a generic bomb, or a deep nesting in a
    // field the type ignores (which rmp-serde skips by recursing).
    for r in &overflows {
        assert!(
            r.id.ends_with(".nested")
                || r.id.contains("bomb")
                || r.id.contains("unknown-field-nested"),
            "{r:?}"
        );
    }
    // The check went on after each death: every payload has a result, its own.
    assert!(report.failure.is_none(), "{}", report.text());
    for (at, row) in report.rows.iter().enumerate() {
        assert_eq!(row.index, at, "{row:?}");
    }
    assert!(
        report.rows.iter().all(|r| r.outcome != Outcome::NotRun),
        "{}",
        report.text()
    );
    assert!(report.text().contains("overflowed"), "{}", report.text());
}

#[test]
fn each_death_is_blamed_on_its_own_payload_with_its_own_last_words_and_the_rest_decode() {
    // Every third payload (by length) kills the decoding process, saying which it was.
    let report = check::<Request>()
        .decoder(
            "dies on every third length",
            |bytes| -> Result<Request, String> {
                if bytes.len() % 3 == 0 {
                    eprintln!("dying on a payload of {} bytes", bytes.len());
                    std::process::abort();
                }
                Err(format!("refused {} bytes", bytes.len()))
            },
        )
        .jobs(2)
        .run();
    assert!(report.failure.is_none(), "{}", report.text());
    let mut deaths = 0;
    for (at, row) in report.rows.iter().enumerate() {
        assert_eq!(row.index, at, "{row:?}");
        if row.input_bytes % 3 == 0 {
            deaths += 1;
            let own_words = format!("dying on a payload of {} bytes", row.input_bytes);
            assert!(
                matches!(&row.outcome, Outcome::Crashed(why)
                    if why.contains("SIGABRT") && why.contains(&own_words)),
                "{row:?}"
            );
        } else {
            let refused = format!("refused {} bytes", row.input_bytes);
            assert_eq!(row.outcome, Outcome::Refused(refused), "{row:?}");
        }
    }
    assert!(deaths > 30, "{deaths} deaths: {}", report.text());
    // A death is survived by forking the child that was already started, where the OS can.
    let expected_processes = if cfg!(target_os = "linux") {
        2
    } else {
        2 + deaths
    };
    assert_eq!(report.processes, expected_processes, "{}", report.text());
}

#[test]
fn a_child_with_threads_of_its_own_is_started_again_after_each_death_instead_of_forked() {
    // A thread beside the check (as a program's own would be) could hold a lock when the
    // child forks; such a child is not forked, and each death costs a process start.
    std::thread::spawn(std::thread::park);
    let report = check::<Request>()
        .decoder(
            "dies on every third length",
            |bytes| -> Result<Request, String> {
                if bytes.len() % 3 == 0 {
                    eprintln!("dying on a payload of {} bytes", bytes.len());
                    std::process::abort();
                }
                Err(format!("refused {} bytes", bytes.len()))
            },
        )
        .jobs(2)
        .run();
    assert!(report.failure.is_none(), "{}", report.text());
    let mut deaths = 0;
    for row in &report.rows {
        if row.input_bytes % 3 == 0 {
            deaths += 1;
            let own_words = format!("dying on a payload of {} bytes", row.input_bytes);
            assert!(
                matches!(&row.outcome, Outcome::Crashed(why) if why.contains(&own_words)),
                "{row:?}"
            );
        } else {
            let refused = format!("refused {} bytes", row.input_bytes);
            assert_eq!(row.outcome, Outcome::Refused(refused), "{row:?}");
        }
    }
    assert!(deaths > 30, "{deaths} deaths: {}", report.text());
    // One process a job, and one more a death but where a job's last payload died.
    assert!(
        (deaths + 1..=deaths + 2).contains(&report.processes),
        "{deaths} deaths: {}",
        report.text()
    );
}

#[test]
fn a_payload_that_hangs_is_timed_out_and_whatever_decoded_it_is_gone() {
    // Every 3-byte payload (a claim with nothing after it) hangs the decoder.
    let report = check::<Request>()
        .decoder("hangs on 3 bytes", |bytes| -> Result<Request, String> {
            if bytes.len() == 3 {
                loop {
                    std::thread::sleep(std::time::Duration::from_secs(1));
                }
            }
            Err(format!("refused {} bytes", bytes.len()))
        })
        .time_limit(std::time::Duration::from_millis(300))
        .jobs(2)
        .run();
    assert!(report.failure.is_none(), "{}", report.text());
    let mut hangs = 0;
    for row in &report.rows {
        if row.input_bytes == 3 {
            hangs += 1;
            assert_eq!(row.outcome, Outcome::TimedOut, "{row:?}");
        } else {
            let refused = format!("refused {} bytes", row.input_bytes);
            assert_eq!(row.outcome, Outcome::Refused(refused), "{row:?}");
        }
    }
    assert!(hangs >= 3, "{hangs} hangs: {}", report.text());
    // Nothing that decoded for the check outlives it (a killed process may take a moment).
    #[cfg(target_os = "linux")]
    {
        let test = "a_payload_that_hangs_is_timed_out_and_whatever_decoded_it_is_gone";
        let since = std::time::Instant::now();
        while !running_for(test).is_empty() && since.elapsed().as_secs() < 5 {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert_eq!(running_for(test), Vec::<u32>::new());
    }
}

/// The processes of this test binary, other than this one, that run `test` and are not
/// zombies.
#[cfg(target_os = "linux")]
fn running_for(test: &str) -> Vec<u32> {
    let exe = std::fs::read_link("/proc/self/exe").unwrap();
    let mut running: Vec<u32> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| pid != std::process::id())
        .filter(|pid| std::fs::read_link(format!("/proc/{pid}/exe")).is_ok_and(|e| e == exe))
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|args| args.split(|&b| b == 0).any(|arg| arg == test.as_bytes()))
        })
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
                stat.rsplit(") ")
                    .next()
                    .is_some_and(|s| !s.starts_with('Z'))
            })
        })
        .collect();
    running.sort_unstable();
    running
}

/// A hand-written `Deserialize` that trusts the size hint, as many do.
#[derive(Debug)]
struct Preallocates(#[allow(dead_code)] Vec<u64>);

impl<'de> Deserialize<'de> for Preallocates {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Preallocates;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a sequence")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Preallocates, A::Error> {
                let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
                while let Some(x) = seq.next_element()? {
                    out.push(x);
                }
                Ok(Preallocates(out))
            }
        }
        deserializer.deserialize_seq(V)
    }
}

#[allow(dead_code)]
#[derive(Deserialize, Debug)]
struct Batch {
    items: Preallocates,
}

#[test]
fn a_deserialize_preallocating_from_a_claimed_length_is_caught_at_the_heap_ceiling() {
    // rmp-serde hands the claimed length on as the hint: 4294967295 u64s asked for at once.
    let report = check::<Batch>()
        .decoder("rmp-serde", |bytes| rmp_serde::from_slice::<Batch>(bytes))
        .heap_ceiling(256 << 20)
        .run();
    let over: Vec<_> = report
        .rows
        .iter()
        .filter(|r| matches!(r.outcome, Outcome::OverHeapCeiling(_)))
        .collect();
    assert!(!over.is_empty(), "{}", report.text());
    assert!(
        over.iter().any(|r| r.id.contains("array32-max")),
        "{over:?}"
    );
}

#[test]
fn hardpack_caps_the_hint_so_the_same_deserialize_is_safe() {
    // The hint is bounded by the input left and the budget.
    check::<Batch>().heap_ceiling(256 << 20).assert_hardened();
}

#[test]
fn reported_payloads_from_a_directory_get_the_same_report() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("hardpack-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("a-bomb"),
        [vec![0x91; 100_000], vec![0xc0]].concat(),
    )
    .unwrap();
    std::fs::write(dir.join("b-claim"), [0xdd, 0xff, 0xff, 0xff, 0xff]).unwrap();
    let report = check::<Request>().payloads(&dir).run();
    assert_eq!(report.rows.len(), 2, "{}", report.text());
    assert_eq!(report.rows[0].id, "a-bomb");
    assert!(
        matches!(&report.rows[0].outcome, Outcome::Refused(_)),
        "{report:?}"
    );
    report.assert_hardened();
    let json = report.json();
    assert_eq!(json["rows"][1]["id"], "b-claim");
    assert_eq!(json["hardened"], true);
}

/// A payload directory of its own for each test (tests run in parallel).
fn payload_dir(test: &str, files: &[(&str, &[u8])]) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("hardpack-check-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, bytes) in files {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
    dir
}

#[test]
fn a_sweep_of_max_depth_shows_where_each_payload_starts_to_decode() {
    let dir = payload_dir(
        "sweep",
        &[
            ("depth-2", &[0x91, 0x90]),
            ("depth-3", &[0x91, 0x91, 0x91, 0x01]),
        ],
    );
    let report = check::<Vec<Vec<Vec<u8>>>>()
        .payloads(&dir)
        .sweep(Limit::Depth, [1, 2, 3, 4])
        .run();
    report.assert_hardened();
    assert_eq!(report.rows.len(), 8, "{}", report.text());
    assert_eq!(report.flip_points(), vec![(0, Some(2)), (1, Some(3))]);
    let at_one = report
        .rows
        .iter()
        .find(|r| r.index == 1 && r.limit_value == Some(1))
        .unwrap();
    assert!(
        matches!(&at_one.outcome, Outcome::Refused(m) if m.contains("max_depth")),
        "{at_one:?}"
    );
    // Each run is held to the bound of the limits it ran under.
    let limits = report.limits_of(at_one).unwrap();
    assert_eq!(limits.max_depth, 1);
    assert!(
        report.text().contains("sweep of max_depth"),
        "{}",
        report.text()
    );
    assert_eq!(report.json()["rows"][7]["limit_value"], 4);
    #[cfg(feature = "html")]
    {
        let page = report.html().unwrap();
        assert!(page.contains("Sweep over max_depth") && page.contains("<svg"));
    }
}

#[test]
fn a_sweep_needs_hardpack_as_the_decoder() {
    let dir = payload_dir("sweep-peer", &[("one", &[0x01])]);
    let report = check::<u8>()
        .payloads(&dir)
        .sweep(Limit::AllocBytes, [1, 2])
        .decoder("rmp-serde", |bytes| rmp_serde::from_slice::<u8>(bytes))
        .run();
    assert!(!report.is_hardened());
    assert!(report
        .failure
        .as_deref()
        .unwrap()
        .contains("needs hardpack"));
}

/// A type whose encoding changes every time it is written: its round trip cannot give the same
/// bytes twice.
#[derive(Debug)]
struct Drifting;

static WRITTEN: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl serde::Serialize for Drifting {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(WRITTEN.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
    }
}

impl<'de> Deserialize<'de> for Drifting {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        u64::deserialize(d).map(|_| Drifting)
    }
}

#[test]
fn a_value_that_does_not_round_trip_is_reported_broken() {
    let dir = payload_dir("round-trip", &[("seven", &[0x07])]);
    let report = check::<Drifting>().payloads(&dir).round_trip().run();
    assert!(!report.is_hardened());
    assert!(
        matches!(&report.rows[0].outcome, Outcome::Panicked(m) if m.starts_with("round trip:")),
        "{report:?}"
    );
}

#[test]
fn without_the_round_trip_the_same_value_is_clean() {
    let dir = payload_dir("no-round-trip", &[("seven", &[0x07])]);
    check::<Drifting>().payloads(&dir).assert_hardened();
}

/// The meter's control: a decoder that allocates nothing reads zero on every payload, though
/// each child decodes all its payloads on one thread.
#[test]
fn a_decoder_that_allocates_nothing_reads_zero_on_every_payload() {
    let report = check::<Request>()
        .decoder("nothing", |_: &[u8]| Ok::<(), String>(()))
        .run();
    assert!(report.rows.len() > 100, "{}", report.text());
    for row in &report.rows {
        assert_eq!(row.outcome, Outcome::Accepted, "{row:?}");
        assert_eq!((row.peak_heap_bytes, row.allocations), (0, 0), "{row:?}");
    }
}

/// The same with one allocation of 4,096 bytes a payload: each reads exactly that, whatever
/// the payloads before it on the same thread did.
#[test]
fn a_decoder_that_holds_4096_bytes_reads_them_on_every_payload() {
    let report = check::<Request>()
        .decoder("4096 bytes", |_: &[u8]| Ok::<_, String>(vec![1u8; 4096]))
        .run();
    assert!(report.rows.len() > 100, "{}", report.text());
    for row in &report.rows {
        assert_eq!(row.outcome, Outcome::Accepted, "{row:?}");
        assert_eq!((row.peak_heap_bytes, row.allocations), (4096, 1), "{row:?}");
    }
}
