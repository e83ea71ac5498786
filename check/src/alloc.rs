//! A counting global allocator: live bytes, peak and number of allocations, per thread.
//!
//! Install it in a binary or test crate with
//! `#[global_allocator] static ALLOC: hardpack_check::CountingAlloc = hardpack_check::CountingAlloc;`
//! and wrap the code to measure in [`measure`]. Counters are per thread, so tests running in
//! parallel do not disturb each other; memory freed by another thread than the one that
//! allocated it is not followed (a decode allocates and frees on its own thread).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::time::{Duration, Instant};

thread_local! {
    static LIVE: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
    static COUNT: Cell<usize> = const { Cell::new(0) };
    /// Live bytes above which this thread's requests are refused (see [`refusing_above`]).
    static CEILING: Cell<usize> = const { Cell::new(usize::MAX) };
}

/// Heap bytes a decode may hold above its `max_alloc_bytes`, as this meter counts them:
/// none. The decoder charges every allocation to the budget before requesting it (the
/// meter counts requested sizes, not the allocator's own bookkeeping).
pub const ALLOC_SLACK_BYTES: usize = 0;

/// The system allocator, counting what the current thread requests.
pub struct CountingAlloc;

fn on_alloc(size: usize) {
    let _ = LIVE.try_with(|live| {
        let now = live.get().saturating_add(size);
        live.set(now);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
    });
    let _ = COUNT.try_with(|c| c.set(c.get().saturating_add(1)));
}

/// True when a request that adds `grow` live bytes (after freeing `shrink`) must be refused.
fn refused(shrink: usize, grow: usize) -> bool {
    let live = LIVE.try_with(Cell::get).unwrap_or(0);
    let ceiling = CEILING.try_with(Cell::get).unwrap_or(usize::MAX);
    live.saturating_sub(shrink).saturating_add(grow) > ceiling
}

fn on_free(size: usize) {
    let _ = LIVE.try_with(|live| live.set(live.get().saturating_sub(size)));
}

// SAFETY: every call is forwarded unchanged to `System`, or refused with a null pointer
// (what `GlobalAlloc` allows, and what `System` itself returns when memory runs out); the
// bookkeeping touches only const-initialised thread-locals without destructors, which
// never allocate.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if refused(0, layout.size()) {
            return std::ptr::null_mut();
        }
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            on_alloc(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if refused(0, layout.size()) {
            return std::ptr::null_mut();
        }
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            on_alloc(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        on_free(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if refused(layout.size(), new_size) {
            return std::ptr::null_mut();
        }
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            // Counted as a free and a new allocation: the peak sees the new size.
            on_free(layout.size());
            on_alloc(new_size);
        }
        p
    }
}

/// What a measured closure cost on this thread.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cost {
    /// Highest number of heap bytes live at once above what was live before it started.
    pub peak_bytes: usize,
    /// Heap bytes still live at the end above what was live before it started (0 if it
    /// freed more than it kept).
    pub kept_bytes: usize,
    /// Allocations (and reallocations) made.
    pub allocations: usize,
    /// Wall-clock time.
    pub elapsed: Duration,
}

/// True when [`CountingAlloc`] is this program's global allocator.
pub fn is_installed() -> bool {
    let before = COUNT.with(Cell::get);
    drop(std::hint::black_box(Box::new(0u64)));
    COUNT.with(Cell::get) != before
}

/// Runs `f` and returns its result with what it cost. Without [`CountingAlloc`] installed the
/// byte and allocation counts are zero (check [`is_installed`]).
pub fn measure<T>(f: impl FnOnce() -> T) -> (T, Cost) {
    let base_live = LIVE.with(Cell::get);
    let base_count = COUNT.with(Cell::get);
    PEAK.with(|p| p.set(base_live));
    let started = Instant::now();
    let out = f();
    let elapsed = started.elapsed();
    let cost = Cost {
        peak_bytes: PEAK.with(Cell::get).saturating_sub(base_live),
        kept_bytes: LIVE.with(Cell::get).saturating_sub(base_live),
        allocations: COUNT.with(Cell::get).saturating_sub(base_count),
        elapsed,
    };
    (out, cost)
}

/// Runs `f` with this thread's allocator refusing (returning null, as an exhausted system
/// allocator does) every request that would take its live heap more than `ceiling` bytes
/// above what was live when `f` started: how a test shows that a refusal reaches the caller
/// as an error, where a plain `Vec::push` would abort the process. Without
/// [`CountingAlloc`] installed nothing is refused.
pub fn refusing_above<T>(ceiling: usize, f: impl FnOnce() -> T) -> T {
    /// Puts the previous ceiling back, even if `f` panics.
    struct Restore(usize);
    impl Drop for Restore {
        fn drop(&mut self) {
            CEILING.with(|c| c.set(self.0));
        }
    }
    let base = LIVE.with(Cell::get);
    let _restore = Restore(CEILING.with(|c| c.replace(base.saturating_add(ceiling))));
    f()
}
