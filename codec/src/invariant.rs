//! Internal invariants that break are loud: a panic in debug builds (the tests, and the fuzz
//! builds, which run with `-O --debug-assertions`), so a fuzzer that reaches a broken invariant
//! crashes instead of being handed a plausible wrong value. Release builds have no panic path
//! and no call here at all: the caller goes on with the fallback it names at the call site.

/// Reports that an internal invariant broke.
#[inline(always)]
#[track_caller]
pub(crate) fn broken(what: &'static str) {
    #[cfg(debug_assertions)]
    broken_in_debug_build(what);
    #[cfg(not(debug_assertions))]
    let _ = what;
}

#[cfg(debug_assertions)]
#[cold]
#[inline(never)]
#[track_caller]
#[allow(clippy::panic)] // The crate's one panic, in debug builds only: a bug in hardpack.
fn broken_in_debug_build(what: &'static str) {
    panic!("hardpack internal invariant broken: {what}");
}

/// `Some(x)` is `x`; `None` reports the broken invariant `what` and gives `fallback`.
#[inline(always)]
#[track_caller]
pub(crate) fn expect_or<T>(option: Option<T>, fallback: T, what: &'static str) -> T {
    match option {
        Some(x) => x,
        None => {
            broken(what);
            fallback
        }
    }
}
