//! `model_agrees`: the verdict of a reference decoder written from the specification.

use hardpack::{Decoder, ErrorKind};

use super::*;

/// The codec gives the reference decoder's verdict on the payload, under the limits the
/// input chooses (with no budget: the model does not keep the codec's accounts).
pub fn model_agrees(data: &[u8]) -> Outcome {
    let (mut limits, payload) = limits_from_input(data);
    limits.max_alloc_bytes = usize::MAX;
    let decoder = Decoder::new(limits.clone());
    let as_model = |e: &hardpack::Error| crate::model::ModelError {
        kind: e.kind().clone(),
        offset: e.offset(),
        depth: e.depth(),
    };
    let prefix = decoder.decode_prefix(payload);
    let whole = decoder.decode(payload);
    let refused_by_allocator = |e: Option<&hardpack::Error>| {
        e.is_some_and(|e| matches!(e.kind(), ErrorKind::OutOfMemory { .. }))
    };
    if !refused_by_allocator(prefix.as_ref().err()) && !refused_by_allocator(whole.as_ref().err()) {
        // The model recurses once per level: on a thread with room for the deepest input.
        let (input, model_limits) = (payload.to_vec(), limits.clone());
        let (model_prefix, model_whole) = on_big_stack(move || {
            (
                crate::model::decode_prefix(&input, &model_limits),
                crate::model::decode(&input, &model_limits),
            )
        });
        let codec_prefix = prefix
            .as_ref()
            .map(|(v, n)| (v.clone(), *n))
            .map_err(as_model);
        assert!(
            codec_prefix == model_prefix,
            "decode_prefix gave {codec_prefix:?}, the specification {model_prefix:?}"
        );
        let codec_whole = whole.as_ref().cloned().map_err(as_model);
        assert!(
            codec_whole == model_whole,
            "decode gave {codec_whole:?}, the specification {model_whole:?}"
        );
    }
    outcome(&whole, payload.len())
}

/// Runs `f` on one long-lived thread with a 256 MiB stack (virtual: only what is touched is
/// committed), for the reference decoder's recursion.
pub(super) fn on_big_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    type Job = Box<dyn FnOnce() + Send>;
    static WORKER: std::sync::Mutex<Option<std::sync::mpsc::Sender<Job>>> =
        std::sync::Mutex::new(None);
    let mut worker = WORKER
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let jobs = worker.get_or_insert_with(|| {
        let (jobs, inbox) = std::sync::mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("model".into())
            .stack_size(256 << 20)
            .spawn(move || {
                for job in inbox {
                    job();
                }
            })
            .expect("spawn the model's thread");
        jobs
    });
    let (reply, answer) = std::sync::mpsc::channel();
    jobs.send(Box::new(move || {
        let _ = reply.send(std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)));
    }))
    .expect("the model's thread is up");
    match answer.recv() {
        Ok(Ok(value)) => value,
        Ok(Err(panic)) => std::panic::resume_unwind(panic),
        Err(_) => panic!("the model's thread stopped"),
    }
}
