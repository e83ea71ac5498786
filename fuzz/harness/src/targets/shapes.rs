//! The structured targets, whose input is an `arbitrary` description of a value:
//! `roundtrip_structured` and `encode_deep`.

use hardpack::{encode, Decoder, Limits};

use super::*;

/// An arbitrary value round-trips, and encodes exactly as rmpv encodes it (both minimal).
pub fn roundtrip_structured(data: &[u8]) -> Outcome {
    let value = crate::structured::value_from_bytes(data);
    let encoded = encode(&value).expect("a built value encodes");
    let decoded = Decoder::new(Limits::unlimited())
        .decode(&encoded)
        .unwrap_or_else(|e| panic!("encoding of a value does not decode: {e}"));
    assert!(decoded == value, "decode(encode(v)) != v");
    // rmpv's own drop recurses; its depth limit keeps the comparison to shapes it can hold.
    if value.shape().max_depth < rmpv_depth_limit() {
        let mut theirs = Vec::new();
        rmpv::encode::write_value(&mut theirs, &hardpack::rmpv::to_rmpv(&value))
            .expect("rmpv encodes");
        assert_eq!(
            encoded, theirs,
            "hardpack and rmpv encode the same value differently"
        );
    }
    Outcome::Checked
}

/// Stack size for [`encode_deep`]: small enough that any recursion over depth would overflow.
pub const SMALL_STACK: usize = 16 * 1024;

/// A deep value survives every operation on a small stack.
pub fn encode_deep(data: &[u8]) -> Outcome {
    let mut u = arbitrary::Unstructured::new(data);
    let Ok(shape) = u.arbitrary::<crate::structured::DeepShape>() else {
        return Outcome::NoValue;
    };
    on_small_stack(shape.nodes());
    Outcome::Checked
}

/// The checks of [`encode_deep`] on one shape: build, encode, decode, clone, compare, print
/// and drop.
pub(super) fn deep_checks(nodes: Vec<crate::structured::Node>) {
    let value = crate::structured::build(nodes);
    let encoded = encode(&value).expect("encodes");
    let decoded = Decoder::new(Limits::unlimited())
        .decode(&encoded)
        .unwrap_or_else(|e| panic!("does not decode: {e}"));
    let copy = decoded.clone();
    assert!(
        copy == value && decoded == value,
        "clone or decode changed the value"
    );
    assert!(
        format!("{copy:?}") == format!("{value:?}"),
        "a clone prints differently"
    );
    drop((value, decoded, copy));
}

pub(super) type DeepJob = (
    Vec<crate::structured::Node>,
    std::sync::mpsc::Sender<std::thread::Result<()>>,
);

/// Runs [`deep_checks`] on one long-lived thread with a [`SMALL_STACK`] (spawning one per
/// input cost more than the checks of a shallow shape), and resumes its panic here, so the
/// fuzzer sees it as the input's.
pub(super) fn on_small_stack(nodes: Vec<crate::structured::Node>) {
    static WORKER: std::sync::Mutex<Option<std::sync::mpsc::Sender<DeepJob>>> =
        std::sync::Mutex::new(None);
    let mut worker = WORKER
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let jobs = worker.get_or_insert_with(|| {
        let (jobs, inbox) = std::sync::mpsc::channel::<DeepJob>();
        std::thread::Builder::new()
            .name("encode_deep".into())
            .stack_size(SMALL_STACK)
            .spawn(move || {
                for (nodes, reply) in inbox {
                    let outcome = std::panic::catch_unwind(|| deep_checks(nodes));
                    let _ = reply.send(outcome);
                }
            })
            .expect("spawn the small-stack thread");
        jobs
    });
    let (reply, answer) = std::sync::mpsc::channel();
    jobs.send((nodes, reply))
        .expect("the small-stack thread is up");
    match answer.recv() {
        Ok(Ok(())) => {}
        Ok(Err(panic)) => std::panic::resume_unwind(panic),
        // A stack overflow aborts the process before this: the thread never dies quietly.
        Err(_) => panic!("the small-stack thread stopped"),
    }
}
